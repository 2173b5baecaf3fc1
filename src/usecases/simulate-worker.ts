/**
 * Entry point of a `simulate` replay worker thread (`simulate-share.ts`): takes the next free
 * session in discovery order, loads it, replays and flags it, and posts its outcome back; posts
 * `done` when no session is left.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadSession } from '../ingest/index.js';
import { workerFailure } from '../session/errors.js';
import { type FromReplayWorker, FREE, LEFT, type ReplayWorkerData, WORKER } from './simulate-share.js';
import { replaySession } from './simulate-outcome.js';

const port = parentPort;
if (port === null) throw new Error('simulate-worker.js runs only as a worker thread');
// Structured clone keeps the price table's shape (Maps, bigint) intact.
const data = workerData as ReplayWorkerData;
const owners = new Int32Array(data.owners);

function post(message: FromReplayWorker): void {
  port?.postMessage(message);
}

async function replayFreeSessions(): Promise<void> {
  for (const [index, source] of data.sources.entries()) {
    const owner = Atomics.compareExchange(owners, index, FREE, WORKER);
    if (owner === LEFT) Atomics.store(owners, index, WORKER);
    else if (owner !== FREE) continue;
    // Each session on its own: only Claude Code sessions share state across a run, and they are never free.
    const session = await loadSession(source, { content: 'text' });
    post({ kind: 'outcome', index, outcome: replaySession(session, data.config).outcome });
  }
}

replayFreeSessions().then(
  () => post({ kind: 'done' }),
  (error: unknown) => post({ kind: 'failed', failure: workerFailure(error) }),
);
