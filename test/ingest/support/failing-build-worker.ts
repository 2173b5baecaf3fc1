/** A build worker whose every build fails (a job naming no files), posted as a failure (see parse-worker-script.ts). */
import { parentPort } from 'node:worker_threads';
import type { BuildJob, BuildMessage } from '../../../src/ingest/claude-code/build-jobs.js';
import { serveBuildJobs } from '../../../src/ingest/claude-code/build-jobs.js';

const port = parentPort;
if (port === null) throw new Error('a worker thread only');
serveBuildJobs({
  on: (event, listener) =>
    port.on(event, (message: BuildMessage) =>
      listener('owners' in message ? message : { ...message, files: null as unknown as BuildJob['files'] }),
    ),
  postMessage: (result, transfer) => port.postMessage(result, transfer),
});
