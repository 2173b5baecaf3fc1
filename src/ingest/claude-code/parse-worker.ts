/** A parse worker thread's entry (see `parse-jobs.ts`, `parse-ahead.ts`). */
import { parentPort, workerData } from 'node:worker_threads';
import { type ParseWorkerData, serveParseJobs } from './parse-jobs.js';

if (parentPort === null) throw new Error('parse-worker.js runs only as a worker thread');
serveParseJobs(parentPort, workerData as ParseWorkerData);
