/**
 * Building whole sessions ahead on worker threads: the run still takes Claude Code sessions one
 * after another in discovery order (the first claim of a resumed copy's response is
 * deterministic, formats.md §1.5), but the sessions after the one it takes are read and built
 * meanwhile, each alone (`build-jobs.ts`): by workers, and by the main thread itself while it
 * waits for a worker. A session built alone is the session the run would build when no session
 * before it holds a response it asked for; the run checks that when it takes it (`index.ts`), and
 * builds it again against the run's claims otherwise. Output bytes are those of one thread.
 *
 * - Only sessions the run will build are planned (not those the run pack serves), and workers
 *   start only from `minBytes` of their files: a worker costs tens of milliseconds to start.
 * - Memory stays bounded: sessions built ahead and not taken yet, with those being built, stand for
 *   at most `AHEAD_BYTES` of files (one at least); a session of more than `AHEAD_BYTES` of files is
 *   never built ahead: the run streams it when it takes it, as in one thread.
 * - A session the run asks for that is not planned, or planned but not started, is built by the
 *   run as in one thread; planned ones it passed over are dropped.
 * - A worker that dies or fails a build loses nothing: the run builds those sessions itself.
 */
import type { Worker } from 'node:worker_threads';
import type { Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import type { FileStamp } from '../run-pack.js';
import { decodeSession, type EncodedSession } from '../session-codec.js';
import type { WorkerScript } from '../worker-script.js';
import { buildAlone, type BuildJob, type BuildResult, type BuiltSession } from './build-jobs.js';
import type { ClaudeSessionFiles } from './discover.js';
import { defaultParseWorkerScript, leastBusy, type ParallelParse, startParseWorker } from './parse-ahead.js';

/** Bytes of files of the sessions built (or being built) ahead of the run at most. */
export const AHEAD_BYTES = 64 << 20;
/** Bytes ahead of the run past which the main thread builds nothing ahead (the workers go on to `AHEAD_BYTES`). */
const HERE_BYTES = AHEAD_BYTES / 4;
/** Sessions sent to a worker before it has posted the one it builds. */
const JOBS_PER_WORKER = 4;

type Slot = { readonly worker: Worker; readonly running: Set<Job>; alive: boolean };

type Job = {
  readonly index: number;
  readonly files: ClaudeSessionFiles;
  readonly bytes: number;
  readonly stamps: readonly (FileStamp | null)[];
  /**
   * planned: not started; worker: sent to `slot`; here: being built by the main thread ahead;
   * built: `built` holds it; run: left to the run (too big, lost, failed, taken unstarted);
   * dropped: passed over.
   */
  state: 'planned' | 'worker' | 'here' | 'built' | 'run' | 'dropped';
  slot: Slot | null;
  built: BuiltSession<Session> | BuiltSession<EncodedSession> | null;
  fromWorker: boolean;
  wake: (() => void) | null;
};

/** Bytes posted by a worker arrive as plain `Uint8Array`s: the codec reads `Buffer`s (same bytes, no copy). */
function posted(encoded: EncodedSession): EncodedSession {
  const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoded.kind === 'json'
    ? { kind: 'json', whole: buffer(encoded.whole) }
    : { ...encoded, requests: buffer(encoded.requests), items: buffer(encoded.items) };
}

/**
 * A planned session: its files, their size in bytes, and their stamps taken before any was read
 * (for the run pack; empty without one).
 */
export type PlannedSession = {
  readonly files: ClaudeSessionFiles;
  readonly bytes: number;
  readonly stamps: readonly (FileStamp | null)[];
};

/** A session built alone, the response keys it asked for in order, and its files' stamps from the plan. */
export type BuiltAhead = BuiltSession<Session> & { readonly stamps: readonly (FileStamp | null)[] };

export class BuildAhead {
  private readonly jobs: Job[];
  private readonly byFiles = new Map<ClaudeSessionFiles, Job>();
  private readonly slots: Slot[] = [];
  /** First job not taken or dropped yet. */
  private head = 0;
  /** Next job that may be started (sent to a worker or built here). */
  private next = 0;
  /** Bytes of the jobs started and not taken. */
  private aheadBytes = 0;
  private closed = false;
  /** Sessions taken built ahead, by the workers and by the main thread (tests, statistics). */
  readonly taken = { byWorkers: 0, here: 0 };

  private constructor(
    plan: readonly PlannedSession[],
    private readonly content: ContentMode,
    private readonly cache: ParseCache | null,
    workers: number,
    /** Whether the main thread builds the next sessions while it waits for a worker. */
    private readonly buildsHere: boolean,
    script: WorkerScript,
  ) {
    this.jobs = plan.map((planned, index) => ({
      index,
      files: planned.files,
      bytes: planned.bytes,
      stamps: planned.stamps,
      state: planned.bytes > AHEAD_BYTES ? 'run' : 'planned',
      slot: null,
      built: null,
      fromWorker: false,
      wake: null,
    }));
    for (const job of this.jobs) if (!this.byFiles.has(job.files)) this.byFiles.set(job.files, job);
    for (let i = 0; i < workers; i += 1) this.slots.push(this.startWorker(script));
    this.send();
  }

  /**
   * Starts workers for `plan` (the sessions in the order the run takes them) when it is worth it;
   * null when not (then the run builds every session itself).
   */
  static start(
    plan: readonly PlannedSession[],
    content: ContentMode,
    cache: ParseCache | null,
    options: ParallelParse,
  ): BuildAhead | null {
    const workers = Math.floor(options.workers);
    if (workers < 1 || plan.length < 2) return null;
    let bytes = 0;
    for (const planned of plan) bytes += planned.bytes;
    if (bytes < options.minBytes) return null;
    const script = options.workerScript === undefined ? defaultParseWorkerScript() : options.workerScript;
    if (script === null) return null;
    const buildsHere = (options.mainShare ?? 0) > 0;
    return new BuildAhead(plan, content, cache, Math.min(workers, plan.length), buildsHere, script);
  }

  private startWorker(script: WorkerScript): Slot {
    // The callbacks run once the worker posts or ends, after `slot` is assigned.
    const slot: Slot = {
      worker: startParseWorker<BuildResult>(
        script,
        { credits: new SharedArrayBuffer(4), builds: true },
        (result) => this.receive(slot, result),
        () => this.lose(slot),
      ),
      running: new Set(),
      alive: true,
    };
    return slot;
  }

  private receive(slot: Slot, result: BuildResult): void {
    const job = this.jobs[result.id];
    if (job === undefined || job.slot !== slot || !slot.running.has(job)) return;
    slot.running.delete(job);
    if (job.state === 'worker') {
      if (result.built === null) this.leaveToRun(job);
      else {
        job.state = 'built';
        job.built = result.built;
        job.fromWorker = true;
      }
    }
    this.send();
    this.wakeUp(job);
  }

  /** A worker died (or was stopped): the sessions it had are built by the run. */
  private lose(slot: Slot): void {
    if (!slot.alive) return;
    slot.alive = false;
    for (const job of slot.running) {
      if (job.state === 'worker') this.leaveToRun(job);
      this.wakeUp(job);
    }
    slot.running.clear();
    this.send();
  }

  private leaveToRun(job: Job): void {
    if (job.state === 'worker' || job.state === 'here' || job.state === 'built') this.aheadBytes -= job.bytes;
    job.state = 'run';
    job.built = null;
  }

  private wakeUp(job: Job): void {
    const wake = job.wake;
    job.wake = null;
    wake?.();
  }

  /**
   * The next job that may be started with `limit` bytes ahead at most (one always may when none
   * is ahead), or undefined.
   */
  private nextStartable(limit: number): Job | undefined {
    while (this.next < this.jobs.length && this.jobs[this.next]?.state !== 'planned') this.next += 1;
    const job = this.jobs[this.next];
    if (job === undefined) return undefined;
    return this.aheadBytes === 0 || this.aheadBytes + job.bytes <= limit ? job : undefined;
  }

  private start(job: Job, state: 'worker' | 'here'): void {
    job.state = state;
    this.aheadBytes += job.bytes;
    this.next = job.index + 1;
  }

  /** Sends the next planned sessions to the workers with room for them. */
  private send(): void {
    if (this.closed) return;
    for (;;) {
      const best = leastBusy(this.slots, JOBS_PER_WORKER);
      if (best === null) return;
      const job = this.nextStartable(AHEAD_BYTES);
      if (job === undefined) return;
      this.start(job, 'worker');
      job.slot = best;
      best.running.add(job);
      const message: BuildJob = { id: job.index, files: job.files, content: this.content, cache: this.cache };
      best.worker.postMessage(message);
    }
  }

  /** Builds the next startable session here, while the run waits for a worker. */
  private async buildHere(job: Job): Promise<void> {
    this.start(job, 'here');
    let built: BuiltSession<Session> | null = null;
    try {
      built = await buildAlone(job.files, this.content, this.cache);
    } catch {
      // The run builds it again, and meets the same error there.
    }
    if (job.state === 'here') {
      if (built === null) this.leaveToRun(job);
      else {
        job.state = 'built';
        job.built = built;
      }
    }
    this.send();
    this.wakeUp(job);
  }

  /** Drops a job passed over: its result is not kept. */
  private drop(job: Job): void {
    if (job.state === 'worker' || job.state === 'here' || job.state === 'built') this.aheadBytes -= job.bytes;
    job.state = 'dropped';
    job.built = null;
  }

  /**
   * The session of `files` built alone, when it was built ahead; null when the run is to build it
   * (not planned, not started, too big, or its build failed). Sessions planned before it that were
   * not taken are dropped.
   */
  async take(files: ClaudeSessionFiles): Promise<BuiltAhead | null> {
    const job = this.byFiles.get(files);
    if (job === undefined || job.index < this.head) return null;
    this.byFiles.delete(files);
    for (let i = this.head; i < job.index; i += 1) {
      const passed = this.jobs[i];
      if (passed !== undefined) this.drop(passed);
    }
    this.head = job.index + 1;
    for (;;) {
      if (job.state === 'planned') {
        // Not started: the run builds it; the workers go on with the next ones.
        job.state = 'run';
        if (this.next === job.index) this.next += 1;
        this.send();
        return null;
      }
      if (job.state === 'built') {
        const built = job.built;
        // Taken: it no longer counts as built ahead.
        this.leaveToRun(job);
        this.send();
        if (built === null) return null;
        if (job.fromWorker) this.taken.byWorkers += 1;
        else this.taken.here += 1;
        const session = job.fromWorker
          ? decodeSession(posted(built.session as EncodedSession))
          : (built.session as Session);
        return { session, asked: built.asked, stamps: job.stamps };
      }
      if (job.state !== 'worker' && job.state !== 'here') return null;
      if (this.closed) return null;
      // Waiting for a worker: build the next session meanwhile (within a part of the bound, so
      // that the workers, which start every job they can, never wait for the run), or wait.
      const spare = job.state === 'worker' && this.buildsHere ? this.nextStartable(HERE_BYTES) : undefined;
      if (spare !== undefined) {
        await this.buildHere(spare);
        // Reading is mostly synchronous: let the workers' posted results in before looking again.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        job.wake = resolve;
      });
    }
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.jobs) this.wakeUp(job);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
