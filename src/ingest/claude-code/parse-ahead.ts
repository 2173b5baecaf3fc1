/**
 * Parsing ahead on worker threads: the main thread builds sessions one after another (in discovery
 * order: the first claim of a resumed copy's response is deterministic), and the transcripts it is
 * going to read are parsed meanwhile by workers (`parse-jobs.ts`), in the order it will read them.
 * Output bytes are those of a run in one thread: each transcript is read by the same code
 * (`readEntries`) and its entries are used in line order, in the same place of the run.
 *
 * - Only transcripts that a run will parse are planned (not those the run pack or the parse cache
 *   serves), and workers start only when there are at least `minBytes` of them: a worker costs
 *   tens of milliseconds to start, a small run is faster in one thread.
 * - Memory stays bounded: a worker posts a transcript's entries in batches and waits once
 *   `CREDITS` of its batches are unused; at most `JOBS_PER_WORKER` transcripts are sent to a
 *   worker ahead of the one it reads.
 * - A transcript the main thread asks for that is not planned (read a second time, or read out of
 *   plan order) is read in the main thread; planned ones it passed over are dropped.
 * - A worker that dies loses nothing: the transcripts it had are read in the main thread, the
 *   entries already used skipped (a transcript's entries are the same on every read).
 */
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import { compiledWorker, type WorkerScript } from '../worker-script.js';
import { readEntriesOf } from './entry-codec.js';
import type { LineEntry } from './line-entry.js';
import { CREDITS, type ParseBatch, type ParseJob, type ParseWorkerData } from './parse-jobs.js';
import { readEntries } from './read-entries.js';

/**
 * The worker entry as one file, which the build writes beside tsc's (`scripts/bundle-cli.mjs`): a
 * worker loads it in a few milliseconds, where tsc's modules took ~0.2 s.
 */
export const PARSE_WORKER_BUNDLE = 'parse-worker.bundle.js';

/**
 * The compiled worker beside this module: the bundled entry when the build wrote it, else tsc's
 * (`dist/ingest/claude-code/parse-worker.js`); null from the TypeScript source.
 */
export function defaultParseWorkerScript(): WorkerScript | null {
  return (
    compiledWorker(new URL(`./${PARSE_WORKER_BUNDLE}`, import.meta.url)) ??
    compiledWorker(new URL('./parse-worker.js', import.meta.url))
  );
}

/**
 * `node:worker_threads`, loaded when a worker is started: most runs start none (threads are opt-in,
 * and a re-run served from the cache plans nothing), and loading it costs every run ~5 ms.
 */
export function workerThreads(): typeof import('node:worker_threads') {
  return createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
}

/** The live worker with the fewest jobs, below `maxJobs` each; null when none has room. */
export function leastBusy<S extends { readonly alive: boolean; readonly running: ReadonlySet<unknown> }>(
  slots: readonly S[],
  maxJobs: number,
): S | null {
  let best: S | null = null;
  for (const slot of slots)
    if (slot.alive && slot.running.size < maxJobs && (best === null || slot.running.size < best.running.size))
      best = slot;
  return best;
}

/**
 * Starts a worker of `script` (`parse-worker.ts`) with `data`: its messages go to `onMessage`; its
 * error and its exit to `onGone` (both may come: the caller ignores the second).
 */
export function startParseWorker<M>(
  script: WorkerScript,
  data: ParseWorkerData,
  onMessage: (message: M) => void,
  onGone: () => void,
): Worker {
  const worker = new (workerThreads().Worker)(script.url, { workerData: data, execArgv: [...script.execArgv] });
  worker.on('message', onMessage);
  worker.on('error', onGone);
  worker.on('exit', onGone);
  return worker;
}

/** How many workers parse, and from how many bytes to parse on. */
export type ParallelParse = {
  /** Worker threads; below 1, no workers. */
  readonly workers: number;
  /** Bytes of planned transcripts below which no worker is started. */
  readonly minBytes: number;
  /**
   * The share of the planned bytes the main thread parses itself, between building sessions (0 to
   * 1): with one worker the main thread would otherwise wait for it most of the run. When workers
   * build whole sessions (`sessions`), the share of the planned bytes, from the first session, that
   * the run builds itself whoever gets there first (default 1: every session no worker has
   * started); past it, the run waits for the workers (tests).
   */
  readonly mainShare?: number;
  /**
   * Whether the workers read and build whole sessions (`build-ahead.ts`) rather than parse
   * transcripts for the main thread to build (`ParseAhead`).
   */
  readonly sessions?: boolean;
  /**
   * With `sessions`, where the run has no cache to serve it: the workers start while the run
   * discovers its sessions, once it has found this many bytes of Claude Code transcripts (default
   * 0: before discovery; `earlyParallel` in `ingest/index.ts`).
   */
  readonly earlyFromBytes?: number;
  /** The worker to start (tests); default `defaultParseWorkerScript()`. */
  readonly workerScript?: WorkerScript | null;
};

/** Transcripts sent to a worker before it has finished posting the one it reads. */
const JOBS_PER_WORKER = 2;

type Slot = {
  readonly worker: Worker;
  readonly credits: Int32Array;
  /** Jobs sent to it whose last batch has not arrived. */
  readonly running: Set<Job>;
  alive: boolean;
};

type Job = {
  readonly index: number;
  readonly spec: ParseJob;
  slot: Slot | null;
  readonly batches: ParseBatch[];
  ended: boolean;
  /** Its worker died before its last batch. */
  lost: boolean;
  /** Passed over (or abandoned): its batches are dropped as they come. */
  dropped: boolean;
  wake: (() => void) | null;
};

/** A planned transcript: its path and size in bytes. */
export type PlannedRead = { readonly file: string; readonly bytes: number };

export class ParseAhead {
  private readonly jobs: Job[];
  private readonly byFile = new Map<string, Job>();
  private readonly slots: Slot[] = [];
  /** First job not taken or dropped yet. */
  private head = 0;
  /** Next job to send to a worker. */
  private nextToSend = 0;
  private closed = false;

  private constructor(
    plan: readonly PlannedRead[],
    content: ContentMode,
    cache: ParseCache | null,
    workers: number,
    mainShare: number,
    script: WorkerScript,
  ) {
    // The main thread's transcripts are spread through the plan: whenever its part of the bytes
    // so far falls below its share, the next one is its own (never sent; dropped when read).
    let total = 0;
    let mine = 0;
    this.jobs = plan.map((read, index) => {
      const own = mine < mainShare * total;
      total += read.bytes;
      if (own) mine += read.bytes;
      return {
        index,
        spec: { id: index, file: read.file, content, cache },
        slot: null,
        batches: [],
        ended: false,
        lost: false,
        dropped: own,
        wake: null,
      };
    });
    for (const job of this.jobs) if (!this.byFile.has(job.spec.file)) this.byFile.set(job.spec.file, job);
    for (let i = 0; i < workers; i += 1) this.slots.push(this.startWorker(script));
    this.send();
  }

  /**
   * Starts workers for `plan` (the transcripts in the order they will be read) when it is worth it;
   * null when not (then every transcript is read in the calling thread).
   */
  static start(
    plan: readonly PlannedRead[],
    content: ContentMode,
    cache: ParseCache | null,
    options: ParallelParse,
  ): ParseAhead | null {
    const workers = Math.floor(options.workers);
    if (workers < 1 || plan.length === 0) return null;
    let bytes = 0;
    for (const read of plan) bytes += read.bytes;
    if (bytes < options.minBytes) return null;
    const script = options.workerScript === undefined ? defaultParseWorkerScript() : options.workerScript;
    if (script === null) return null;
    const share = Math.min(Math.max(options.mainShare ?? 0, 0), 1);
    return new ParseAhead(plan, content, cache, Math.min(workers, plan.length), share, script);
  }

  private startWorker(script: WorkerScript): Slot {
    const shared = new SharedArrayBuffer(4);
    const credits = new Int32Array(shared);
    credits[0] = CREDITS;
    // The callbacks run once the worker posts or ends, after `slot` is assigned.
    const slot: Slot = {
      worker: startParseWorker<ParseBatch>(
        script,
        { credits: shared },
        (batch) => this.receive(slot, batch),
        () => this.lose(slot),
      ),
      credits,
      running: new Set(),
      alive: true,
    };
    return slot;
  }

  private receive(slot: Slot, batch: ParseBatch): void {
    const job = this.jobs[batch.id];
    if (job === undefined) return;
    if (batch.end !== null) {
      job.ended = true;
      slot.running.delete(job);
      this.send();
    }
    if (job.dropped) this.giveBack(slot);
    else job.batches.push(batch);
    this.wakeUp(job);
  }

  /** A worker died (or was stopped): what it had not finished is read in the main thread. */
  private lose(slot: Slot): void {
    if (!slot.alive) return;
    slot.alive = false;
    for (const job of slot.running) {
      job.lost = true;
      this.wakeUp(job);
    }
    slot.running.clear();
    this.send();
  }

  private wakeUp(job: Job): void {
    const wake = job.wake;
    job.wake = null;
    wake?.();
  }

  private giveBack(slot: Slot): void {
    Atomics.add(slot.credits, 0, 1);
    Atomics.notify(slot.credits, 0);
  }

  /** Sends the next planned transcripts to the workers with room for them. */
  private send(): void {
    if (this.closed) return;
    for (;;) {
      while (this.nextToSend < this.jobs.length && this.jobs[this.nextToSend]?.dropped === true) this.nextToSend += 1;
      const job = this.jobs[this.nextToSend];
      if (job === undefined) return;
      const best = leastBusy(this.slots, JOBS_PER_WORKER);
      if (best === null) return;
      job.slot = best;
      best.running.add(job);
      best.worker.postMessage(job.spec);
      this.nextToSend += 1;
    }
  }

  /** Drops a job: its batches' credits go back to its worker, now and as they come. */
  private drop(job: Job): void {
    if (job.dropped) return;
    job.dropped = true;
    if (job.slot !== null) for (const _ of job.batches.splice(0)) this.giveBack(job.slot);
  }

  /**
   * Hands every entry of `file` to `use`, in line order, as `readEntries` in this thread would (and
   * rejects with the same message when the read fails): from the workers when `file` is the next
   * planned transcript or a later one (those before it are dropped), else read here.
   */
  async read(file: string, use: (entry: LineEntry) => void): Promise<boolean> {
    const job = this.byFile.get(file);
    if (job === undefined || job.index < this.head || job.dropped) return false;
    this.byFile.delete(file);
    for (let i = this.head; i < job.index; i += 1) {
      const passed = this.jobs[i];
      if (passed !== undefined) this.drop(passed);
    }
    this.head = job.index + 1;
    if (job.slot === null) {
      // Not sent yet (the workers are behind, or gone): read here.
      job.dropped = true;
      this.send();
      return false;
    }
    let used = 0;
    let done = false;
    try {
      for (;;) {
        const batch = job.batches.shift();
        if (batch !== undefined) {
          this.giveBack(job.slot);
          readEntriesOf(batch.entries, (entry) => {
            use(entry);
            used += 1;
          });
          if (batch.end === null) continue;
          done = true;
          if (batch.end.failure !== null) throw new Error(batch.end.failure);
          return true;
        }
        if (job.lost || this.closed) break;
        await new Promise<void>((resolve) => {
          job.wake = resolve;
        });
      }
    } finally {
      if (!done) this.drop(job);
    }
    // Its worker died: read it here, without the entries already used.
    let skip = used;
    await readEntries(file, job.spec.content, job.spec.cache, (entry) => {
      if (skip > 0) skip -= 1;
      else use(entry);
    });
    return true;
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.jobs) this.wakeUp(job);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
