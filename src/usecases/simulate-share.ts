/**
 * `simulate` on more than one thread: worker threads load, replay and flag whole sessions beside
 * the main thread, which does the same with the sessions no worker has taken. Each thread takes
 * the next free session in discovery order (one shared array says which thread owns which
 * session), and every session's outcome (`simulate-outcome.ts`: its rows, facts and flags, plain
 * data) is used in discovery order by the caller, so the report is the same bytes whatever the
 * number of threads and whichever thread replayed a session.
 *
 * Workers take every format but Claude Code: a Claude Code session's requests are deduplicated
 * against the sessions loaded before it in the same run (formats.md §1.5), which only the main
 * thread, loading them in order, knows.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ParallelParse, SessionSource, WorkerScript } from '../ingest/index.js';
import { compiledWorker } from '../ingest/worker-script.js';
import { revivedError, type WorkerFailure } from '../session/errors.js';
import type { IngestIssue } from '../session/model.js';
import type { SessionShare } from './for-each-session.js';
import type { OutcomeConfig, SessionOutcome } from './simulate-outcome.js';

/** An owner slot's values in the shared array: free, the main thread's, a worker's, left by the main thread to the workers. */
export const FREE = 0;
export const MAIN = 1;
export const WORKER = 2;
export const LEFT = 3;

/** What a replay worker is started with (`workerData`). */
export type ReplayWorkerData = {
  readonly sources: readonly SessionSource[];
  readonly config: OutcomeConfig;
  /** One `Int32Array` slot per source (`FREE`, `MAIN`, `WORKER`, `LEFT`), shared by every thread. */
  readonly owners: SharedArrayBuffer;
};

/** Worker → main thread. */
export type FromReplayWorker =
  | { readonly kind: 'outcome'; readonly index: number; readonly outcome: SessionOutcome }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly failure: WorkerFailure };

/** The bundled worker's file name beside tsc's (`scripts/bundle-cli.mjs`): one file loads faster than tsc's modules. */
export const REPLAY_WORKER_BUNDLE = 'simulate-worker.bundle.js';

/**
 * The compiled worker beside this module: the bundled entry when the build wrote it, else tsc's
 * (`dist/usecases/simulate-worker.js`); null from the TypeScript source.
 */
export function defaultReplayWorkerScript(): WorkerScript | null {
  return (
    compiledWorker(new URL(`./${REPLAY_WORKER_BUNDLE}`, import.meta.url)) ??
    compiledWorker(new URL('./simulate-worker.js', import.meta.url))
  );
}

/**
 * Bytes of logs other than Claude Code's from which the automatic worker starts. A worker costs
 * CPU before it replays at full speed (its start, loading its bundle, V8 compiling the hot code
 * again for its isolate): ≈ 0.4 s more CPU on the 14 MB of `datasets/freecode` (3.0 → 3.4 s),
 * where replaying costs ≈ 0.2 s of CPU per MB. Not measured to break even there (the machine was
 * never idle enough to tell): the bound keeps the worker to runs where that cost is a small part.
 */
export const AUTOMATIC_MIN_REPLAY_BYTES = 16 << 20;

/**
 * Idle cores (this run's main thread counted busy: `busyCores` in `for-each-session.ts`) the
 * automatic worker needs. A replay on one thread already keeps ≈ 1.3 cores busy (V8 compiling its
 * hot code and collecting garbage on helper threads: 2.2–3.6 s of its ≈ 8.5 s of CPU on the
 * FreeCode benchmark corpus), so a worker pays only where both cores are free: on this 2-core VM
 * near idle (`nice -n -10`) `simulate` took 6.5 s with a worker against 7.8 s without, and at a
 * load of 3–6 it lost 1.6–5 s (bench/README.md). Since the summary no longer runs on DuckDB's
 * threads, a worker lost on that machine idle too (3.11 s against 3.02 s, 5 alternated runs,
 * sim11b): with the run's main thread counted busy (`busyFromLoad` where the gauge has too short a
 * window), it never starts on 2 cores; machines with more were not measured.
 */
export const AUTOMATIC_MIN_IDLE_REPLAY_CORES = 1.5;

/**
 * Log bytes above which a session is replayed on the main thread whatever the thread count. A
 * replay holds its session's whole content (a 1 GB log: ~0.5 GB of strings) and V8 lets a heap
 * grow to 2–4× what it holds between full collections; the bound on that growth
 * (`heap-growth.ts`) watches the main thread's heap and sets a flag every isolate reads, so a
 * worker holding a large session beside a small main heap would grow unbounded (or reach its
 * isolate's heap limit and fail the run).
 */
export const WORKER_MAX_SESSION_BYTES = 64 << 20;

/** The bytes of a session's log files (the automatic worker's threshold); unreadable files count 0. */
export function sourceBytes(source: SessionSource): number {
  let files: (string | null)[];
  switch (source.format) {
    case 'freecode':
      files = [source.files.rolloutFile, source.files.messagesFile, source.files.metaFile, source.files.memoryFile];
      break;
    case 'codex':
      files = [source.files.file, ...(source.files.subagents ?? []).map((sub) => sub.file)];
      break;
    case 'swe-agent':
      files = [source.files.file];
      break;
    case 'opencode':
      files = [source.files.sessionFile];
      break;
    default:
      files = [];
  }
  let bytes = 0;
  for (const file of files) {
    if (file === null) continue;
    try {
      bytes += statSync(file).size;
    } catch {
      // Unreadable: loading it reports why.
    }
  }
  return bytes;
}

export type ReplayShareOptions = {
  readonly config: OutcomeConfig;
  /** Called with each session a worker replayed, as it arrives (in any order). */
  readonly onOutcome: (index: number, outcome: SessionOutcome) => void;
  /** Whether the thread count was asked for (`$CACHECOST_THREADS`): then workers start whatever the size. */
  readonly explicit: boolean;
  /** The worker to start; default `defaultReplayWorkerScript()` (tests start the TypeScript source). */
  readonly workerScript?: WorkerScript | null;
  /** Sessions of more log bytes stay on the main thread; default `WORKER_MAX_SESSION_BYTES` (tests). */
  readonly workerMaxSessionBytes?: number;
};

/** The `SessionShare` of `simulate`: replay workers beside the main thread. Stop it when the run ends. */
export class ReplayShare implements SessionShare {
  private owners: Int32Array | null = null;
  /** Sessions from this index on are left to the workers (`ParallelParse.mainShare`; tests). */
  private mainUntil = Infinity;
  private readonly workers: Worker[] = [];
  private readonly taken = new Map<number, readonly IngestIssue[]>();
  private finished: Promise<void> = Promise.resolve();

  constructor(private readonly options: ReplayShareOptions) {}

  /** How many workers run (0 until `start`, or when none was worth starting). */
  get threads(): number {
    return this.workers.length;
  }

  start(
    sources: readonly SessionSource[],
    plan: { readonly parallel: ParallelParse; readonly busyCores: number },
  ): void {
    const { parallel } = plan;
    const script = this.options.workerScript === undefined ? defaultReplayWorkerScript() : this.options.workerScript;
    if (script === null) return;
    const workers = Math.max(0, Math.floor(parallel.workers));
    if (workers < 1) return;
    if (!this.options.explicit && availableParallelism() - plan.busyCores < AUTOMATIC_MIN_IDLE_REPLAY_CORES) return;
    // Claude Code sessions and large ones stay here (`WORKER_MAX_SESSION_BYTES`).
    const maxBytes = this.options.workerMaxSessionBytes ?? WORKER_MAX_SESSION_BYTES;
    const mainOnly = sources.map((source) => source.format === 'claude-code');
    let shareableBytes = 0;
    let shareable = 0;
    sources.forEach((source, index) => {
      if (mainOnly[index]) return;
      const bytes = sourceBytes(source);
      if (bytes > maxBytes) mainOnly[index] = true;
      else {
        shareable += 1;
        shareableBytes += bytes;
      }
    });
    // A worker needs a session besides the one the main thread takes first.
    const count = Math.min(workers, shareable - 1);
    if (count < 1) return;
    if (!this.options.explicit && shareableBytes < AUTOMATIC_MIN_REPLAY_BYTES) return;
    const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * sources.length);
    const owners = new Int32Array(buffer);
    sources.forEach((_, index) => {
      if (mainOnly[index]) owners[index] = MAIN;
    });
    this.owners = owners;
    this.mainUntil = Math.ceil((parallel.mainShare ?? 1) * sources.length);
    const data: ReplayWorkerData = { sources, config: this.options.config, owners: buffer };
    const runs: Promise<void>[] = [];
    for (let i = 0; i < count; i += 1) {
      const worker = new Worker(script.url, { workerData: data, execArgv: [...script.execArgv] });
      this.workers.push(worker);
      runs.push(
        new Promise<void>((resolve, reject) => {
          let done = false;
          worker.on('message', (message: FromReplayWorker) => {
            switch (message.kind) {
              case 'outcome':
                this.taken.set(message.index, message.outcome.issues);
                this.options.onOutcome(message.index, message.outcome);
                return;
              case 'done':
                done = true;
                resolve();
                return;
              case 'failed':
                reject(revivedError(message.failure));
                return;
              default: {
                const unreachable: never = message;
                reject(new Error(`unknown worker message ${JSON.stringify(unreachable)}`));
              }
            }
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (!done)
              reject(new Error(`a replay worker stopped before its sessions were replayed (exit code ${code})`));
          });
        }),
      );
    }
    this.finished = Promise.all(runs).then(() => undefined);
    // Awaited by `finish`; a failure meanwhile is not an unhandled rejection.
    this.finished.catch(() => undefined);
  }

  took(index: number): boolean {
    const owners = this.owners;
    if (owners === null) return false;
    // A worker takes every session it finds free or left to it; it has not passed one it left.
    const mine = index < this.mainUntil ? MAIN : LEFT;
    const owner = Atomics.compareExchange(owners, index, FREE, mine);
    return owner === FREE ? mine === LEFT : owner !== MAIN;
  }

  async finish(): Promise<ReadonlyMap<number, readonly IngestIssue[]>> {
    await this.finished;
    return this.taken;
  }

  /** Stops the workers (each has posted its last outcome once `finish` resolved). */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
