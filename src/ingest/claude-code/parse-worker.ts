/**
 * A parse worker thread's entry: it parses transcripts (`parse-jobs.ts`, `parse-ahead.ts`) or, with
 * `builds`, builds whole sessions (`build-jobs.ts`, `build-ahead.ts`); each mode loads only its modules.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ParseWorkerData } from './parse-jobs.js';

const port = parentPort;
if (port === null) throw new Error('parse-worker.js runs only as a worker thread');
const data = workerData as ParseWorkerData;
if (data.builds === true) {
  const { serveBuildJobs } = await import('./build-jobs.js');
  serveBuildJobs(port);
} else {
  const { serveParseJobs } = await import('./parse-jobs.js');
  serveParseJobs(port, data);
}
