/** A build worker that dies (exit code 3) right after posting its first built session (see parse-worker-script.ts). */
import { parentPort } from 'node:worker_threads';
import { serveBuildJobs } from '../../../src/ingest/claude-code/build-jobs.js';

const port = parentPort;
if (port === null) throw new Error('a worker thread only');
serveBuildJobs({
  on: (event, listener) => port.on(event, listener),
  postMessage: (result, transfer) => {
    port.postMessage(result, transfer);
    process.exit(3);
  },
});
