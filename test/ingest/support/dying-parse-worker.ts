/** A parse worker that dies (exit code 3) right after posting its second batch (see parse-worker-script.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { type ParseWorkerData, serveParseJobs } from '../../../src/ingest/claude-code/parse-jobs.js';

const port = parentPort;
if (port === null) throw new Error('a worker thread only');
let posted = 0;
serveParseJobs(
  {
    on: (event, listener) => port.on(event, listener),
    postMessage: (batch, transfer) => {
      port.postMessage(batch, transfer);
      posted += 1;
      if (posted === 2) process.exit(3);
    },
  },
  workerData as ParseWorkerData,
);
