/**
 * Entry point of a sweep worker thread: receives the sweep's configuration once (`workerData`),
 * then sweeps one session per message and posts progress and the session's totals back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { workerFailure } from '../session/errors.js';
import type { FromWorker, ToWorker } from './sweep-messages.js';
import type { SweepConfig } from './sweep-source.js';
import { sweepSource } from './sweep-source.js';

const port = parentPort;
if (port === null) throw new Error('sweep-worker.js runs only as a worker thread');
// The pool passes a SweepConfig; structured clone keeps its shape (Maps, bigint) intact.
const config = workerData as SweepConfig;

function post(message: FromWorker): void {
  port?.postMessage(message);
}

port.on('message', (message: ToWorker) => {
  sweepSource(message.source, config, (replayedRows) => post({ kind: 'progress', replayedRows })).then(
    (result) => post({ kind: 'done', index: message.index, result }),
    (error: unknown) =>
      post({
        kind: 'failed',
        index: message.index,
        failure: workerFailure(error),
      }),
  );
});
