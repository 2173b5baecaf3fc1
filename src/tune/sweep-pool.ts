/**
 * Spreads sessions over worker threads (or runs them in this thread when one worker is asked
 * for). Workers take the next session as soon as they finish one; results are put back in the
 * discovery order, so the report is the same bytes whatever the number of workers and whichever
 * thread finished first.
 */
import { Worker } from 'node:worker_threads';
import type { SessionSource } from '../ingest/index.js';
import { compiledWorker, type WorkerScript } from '../ingest/worker-script.js';
import { revivedError } from '../session/errors.js';
import type { FromWorker, ToWorker } from './sweep-messages.js';
import type { SourceSweep, SweepConfig } from './sweep-source.js';
import { sweepSource } from './sweep-source.js';

export type { WorkerScript };

/** The compiled worker beside this module (`dist/tune/sweep-worker.js`); null from the TypeScript source. */
export function defaultWorkerScript(): WorkerScript | null {
  return compiledWorker(new URL('./sweep-worker.js', import.meta.url));
}

export type PoolOptions = {
  /** Threads to use; 1, fewer than 2 sessions, or no compiled worker (see `defaultWorkerScript`) runs in this thread. */
  readonly workers: number;
  /** Called once per scenario swept, with the rows it replayed (0 when reused). */
  readonly onProgress?: (replayedRows: number) => void;
  readonly workerScript?: WorkerScript;
  /**
   * A size per source (e.g. its bytes on disk): threads take the largest first, so that a big
   * session does not start last and leave the other threads idle. Does not change the output.
   */
  readonly weights?: readonly number[];
};

/** Sweeps every source and returns the results in the sources' order. */
export async function runSweeps(
  sources: readonly SessionSource[],
  config: SweepConfig,
  options: PoolOptions,
): Promise<SourceSweep[]> {
  const script = options.workerScript ?? defaultWorkerScript();
  const threads = script === null ? 1 : Math.min(Math.max(1, Math.floor(options.workers)), sources.length);
  if (threads <= 1 || script === null) {
    const results: SourceSweep[] = [];
    for (const source of sources) results.push(await sweepSource(source, config, options.onProgress));
    return results;
  }
  return runOnThreads(sources, config, threads, script, options);
}

function runOnThreads(
  sources: readonly SessionSource[],
  config: SweepConfig,
  threads: number,
  script: WorkerScript,
  options: PoolOptions,
): Promise<SourceSweep[]> {
  const results: (SourceSweep | undefined)[] = new Array<SourceSweep | undefined>(sources.length).fill(undefined);
  const weights = options.weights;
  const order = sources.map((_, index) => index);
  if (weights !== undefined) order.sort((a, b) => (weights[b] ?? 0) - (weights[a] ?? 0) || a - b);
  let next = 0;
  let finished = 0;
  const workers: Worker[] = [];
  /** Workers stopped on purpose (no session left): their exit is not a failure. */
  const retired = new Set<Worker>();
  return new Promise<SourceSweep[]>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const worker of workers) void worker.terminate();
      reject(error);
    };
    const give = (worker: Worker) => {
      const index = order[next];
      const source = index === undefined ? undefined : sources[index];
      if (index === undefined || source === undefined) {
        retired.add(worker);
        void worker.terminate();
        return;
      }
      next += 1;
      const message: ToWorker = { kind: 'sweep', index, source };
      worker.postMessage(message);
    };
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(script.url, { workerData: config, execArgv: [...script.execArgv] });
      workers.push(worker);
      worker.on('message', (message: FromWorker) => {
        switch (message.kind) {
          case 'progress':
            options.onProgress?.(message.replayedRows);
            return;
          case 'done':
            results[message.index] = message.result;
            finished += 1;
            if (finished === sources.length) {
              settled = true;
              for (const w of workers) void w.terminate();
              resolve(
                results.map((result) => {
                  if (result === undefined) throw new Error('invariant: every session has a result');
                  return result;
                }),
              );
              return;
            }
            give(worker);
            return;
          case 'failed':
            fail(revivedError(message.failure));
            return;
          default: {
            const unreachable: never = message;
            fail(new Error(`unknown worker message ${JSON.stringify(unreachable)}`));
          }
        }
      });
      worker.on('error', (error) => fail(error));
      worker.on('exit', (code) => {
        if (!settled && !retired.has(worker)) fail(new Error(`sweep worker stopped early (exit code ${code})`));
      });
      give(worker);
    }
  });
}
