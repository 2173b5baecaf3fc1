/**
 * The messages between the sweep pool and its worker threads (structured-clone data only: bigint
 * money and plain objects cross the thread boundary unchanged).
 */
import type { SessionSource } from '../ingest/index.js';
import type { WorkerFailure } from '../session/errors.js';
import type { SourceSweep } from './sweep-source.js';

/** Main thread → worker: sweep the session at `index` of the discovery order. */
export type ToWorker = { readonly kind: 'sweep'; readonly index: number; readonly source: SessionSource };

/** Worker → main thread. */
export type FromWorker =
  | { readonly kind: 'progress'; readonly replayedRows: number }
  | { readonly kind: 'done'; readonly index: number; readonly result: SourceSweep }
  | { readonly kind: 'failed'; readonly index: number; readonly failure: WorkerFailure };
