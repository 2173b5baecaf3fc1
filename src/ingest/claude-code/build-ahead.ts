/**
 * Building whole sessions on worker threads while the run builds the others: the run still takes
 * Claude Code sessions one after another in discovery order (the first claim of a resumed copy's
 * response is deterministic, formats.md §1.5) and builds them itself, from the first; the workers
 * build sessions from the last one backwards, each alone (`build-jobs.ts`). The two meet where
 * their speeds put them, so each thread builds its share of the bytes without either waiting
 * for the other (a worker starts late and runs its first sessions slowly, before its own isolate
 * has compiled the hot code). A session built alone is the session the run would build when no
 * session before it holds a response it asked for; the run checks that when it takes it
 * (`index.ts`), and builds it again against the run's claims otherwise. Output bytes are those of
 * one thread.
 *
 * - Who builds a session is settled by a compare-and-swap on a slot shared with the workers
 *   (`BuildOwners`, sent to each worker once, before its jobs): a session sent to a worker that
 *   the run reaches first is the run's, and the worker passes over it; one the worker has
 *   started, the run waits for.
 * - Only sessions the run will build are planned (not those the run pack serves), and workers
 *   start only from `minBytes` of their files: a worker costs tens of milliseconds to start.
 * - Memory stays bounded: built sessions not taken yet (their encoded bytes), with the files of
 *   those sent to a worker, stand for at most `AHEAD_BYTES` (one session at least); a session of
 *   more than `AHEAD_BYTES` of files is never built ahead: the run streams it, as in one thread.
 * - `mainShare` below 1 (tests): the run leaves the sessions past that share of the planned bytes
 *   to the workers and waits for them, unless the bound stops the workers first.
 * - A worker that dies or fails a build loses nothing: the run builds those sessions itself.
 */
import type { Worker } from 'node:worker_threads';
import type { Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import type { FileStamp } from '../run-pack.js';
import { decodeSession, type EncodedSession } from '../session-codec.js';
import type { WorkerScript } from '../worker-script.js';
import {
  type BuildJob,
  type BuildOwners,
  type BuildResult,
  type BuiltSession,
  type PostedBuild,
  RUN_OWNS,
  UNOWNED,
  unpackKeys,
} from './build-jobs.js';
import type { ClaudeSessionFiles } from './discover.js';
import { defaultParseWorkerScript, leastBusy, type ParallelParse, startParseWorker } from './parse-ahead.js';

/** Bytes the sessions built ahead and not taken (encoded), with the files of those a worker builds, stand for at most. */
export const AHEAD_BYTES = 64 << 20;
/** Sessions sent to a worker before it has posted the one it builds. */
const JOBS_PER_WORKER = 4;

type Slot = {
  readonly worker: Worker;
  readonly running: Set<Job>;
  alive: boolean;
  /** The run's builds it serves; null while it waits for the plan (`BuildWorkers`). */
  owner: BuildAhead | null;
};

/** Starts a build worker; its results and its end go to the `BuildAhead` that owns it by then. */
function startBuildWorker(script: WorkerScript): Slot {
  // The callbacks run once the worker posts or ends, after `slot` is assigned.
  const slot: Slot = {
    worker: startParseWorker<BuildResult>(
      script,
      { credits: new SharedArrayBuffer(4), builds: true },
      (result) => slot.owner?.receive(slot, result),
      () => {
        if (slot.owner === null) slot.alive = false;
        else slot.owner.lose(slot);
      },
    ),
    running: new Set(),
    alive: true,
    owner: null,
  };
  return slot;
}

/**
 * Build workers started before the run knows its sessions (while it discovers them), so that a
 * worker has loaded its code by the time the plan comes: `BuildAhead.start` takes them, or stops
 * them when it starts none.
 */
export class BuildWorkers {
  /** @internal */
  readonly slots: Slot[] = [];

  private constructor(script: WorkerScript, workers: number) {
    for (let i = 0; i < workers; i += 1) this.slots.push(startBuildWorker(script));
  }

  /** Starts `options.workers` build workers; null when none (no worker asked for, or no compiled worker). */
  static start(options: ParallelParse): BuildWorkers | null {
    const workers = Math.floor(options.workers);
    if (workers < 1) return null;
    const script = options.workerScript === undefined ? defaultParseWorkerScript() : options.workerScript;
    return script === null ? null : new BuildWorkers(script, workers);
  }

  /** Stops the workers no `BuildAhead` took. */
  stop(): void {
    for (const slot of this.slots) if (slot.owner === null) void slot.worker.terminate();
  }
}

type Job = {
  readonly index: number;
  readonly files: ClaudeSessionFiles;
  readonly bytes: number;
  readonly stamps: readonly (FileStamp | null)[];
  /**
   * planned: not sent; worker: sent to `slot`; built: `built` holds it (`held` bytes); run: the
   * run builds it (its own, too big, lost, failed); dropped: passed over.
   */
  state: 'planned' | 'worker' | 'built' | 'run' | 'dropped';
  slot: Slot | null;
  built: PostedBuild | null;
  /** Bytes it counts for in `BuildAhead.aheadBytes`. */
  held: number;
};

/** Bytes posted by a worker arrive as plain `Uint8Array`s: the codec reads `Buffer`s (same bytes, no copy). */
function posted(encoded: EncodedSession): EncodedSession {
  const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoded.kind === 'json'
    ? { kind: 'json', whole: buffer(encoded.whole) }
    : { ...encoded, requests: buffer(encoded.requests), items: buffer(encoded.items) };
}

/** Bytes of an encoded session's blobs. */
function encodedBytes(encoded: EncodedSession): number {
  return encoded.kind === 'json' ? encoded.whole.byteLength : encoded.requests.byteLength + encoded.items.byteLength;
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

/**
 * A session built alone, the response keys it asked for in order, its files' stamps from the plan,
 * and the session as the worker encoded it (`encodeSession`: what the run pack stores, not encoded again).
 */
export type BuiltAhead = BuiltSession<Session> & {
  readonly stamps: readonly (FileStamp | null)[];
  readonly encoded: EncodedSession;
};

export class BuildAhead {
  private readonly jobs: Job[];
  private readonly byFiles = new Map<ClaudeSessionFiles, Job>();
  private readonly slots: Slot[] = [];
  /** Who builds each job (`BuildOwners`), shared with the workers. */
  private readonly owners: Int32Array;
  /** First job not taken or dropped yet. */
  private head = 0;
  /** Jobs from this one on have been sent to a worker (or left to the run): the next to send is the one before. */
  private tail: number;
  /** The first job the run leaves to the workers (`mainShare`). */
  private readonly shareEnd: number;
  /** Bytes of the jobs sent to a worker or built, and not taken. */
  private aheadBytes = 0;
  private closed = false;
  /** Wakes the run while it waits in `take`. */
  private waiting: (() => void) | null = null;
  /** Sessions taken built ahead by the workers (tests, statistics). */
  readonly taken = { byWorkers: 0 };

  private constructor(
    plan: readonly PlannedSession[],
    private readonly content: ContentMode,
    private readonly cache: ParseCache | null,
    workers: number,
    mainShare: number,
    script: WorkerScript,
    warm: BuildWorkers | null,
  ) {
    this.jobs = plan.map((planned, index) => ({
      index,
      files: planned.files,
      bytes: planned.bytes,
      stamps: planned.stamps,
      state: planned.bytes > AHEAD_BYTES ? 'run' : 'planned',
      slot: null,
      built: null,
      held: 0,
    }));
    for (const job of this.jobs) if (!this.byFiles.has(job.files)) this.byFiles.set(job.files, job);
    this.owners = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, this.jobs.length)));
    this.tail = this.jobs.length;
    let total = 0;
    for (const job of this.jobs) total += job.bytes;
    let mine = 0;
    let shareEnd = 0;
    while (shareEnd < this.jobs.length && (mainShare >= 1 || mine < mainShare * total)) {
      mine += this.jobs[shareEnd]?.bytes ?? 0;
      shareEnd += 1;
    }
    this.shareEnd = shareEnd;
    for (const slot of warm?.slots ?? []) if (this.slots.length < workers) this.slots.push(slot);
    while (this.slots.length < workers) this.slots.push(startBuildWorker(script));
    for (const slot of this.slots) {
      slot.owner = this;
      const owners: BuildOwners = { owners: this.owners };
      slot.worker.postMessage(owners);
    }
    warm?.stop();
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
    warm: BuildWorkers | null = null,
  ): BuildAhead | null {
    const workers = Math.floor(options.workers);
    let bytes = 0;
    for (const planned of plan) bytes += planned.bytes;
    const script = options.workerScript === undefined ? defaultParseWorkerScript() : options.workerScript;
    if (workers < 1 || plan.length < 2 || bytes < options.minBytes || script === null) {
      warm?.stop();
      return null;
    }
    const share = Math.min(Math.max(options.mainShare ?? 1, 0), 1);
    return new BuildAhead(plan, content, cache, Math.min(workers, plan.length), share, script, warm);
  }

  /** @internal A worker's result (`startBuildWorker`). */
  receive(slot: Slot, result: BuildResult): void {
    const job = this.jobs[result.id];
    if (job === undefined || job.slot !== slot || !slot.running.has(job)) return;
    slot.running.delete(job);
    if (job.state === 'worker') {
      if (result.built === null) this.leaveToRun(job);
      else {
        job.state = 'built';
        job.built = result.built;
        this.aheadBytes += encodedBytes(result.built.session) - job.held;
        job.held = encodedBytes(result.built.session);
      }
    }
    this.send();
    this.wakeUp();
  }

  /** @internal A worker died (or was stopped): the sessions it had are built by the run. */
  lose(slot: Slot): void {
    if (!slot.alive) return;
    slot.alive = false;
    for (const job of slot.running) if (job.state === 'worker') this.leaveToRun(job);
    slot.running.clear();
    this.send();
    this.wakeUp();
  }

  /** Frees what `job` held: it is the run's to build, or passed over (`state`). */
  private release(job: Job, state: 'run' | 'dropped'): void {
    this.aheadBytes -= job.held;
    job.held = 0;
    job.state = state;
    job.built = null;
  }

  private leaveToRun(job: Job): void {
    this.release(job, 'run');
  }

  private wakeUp(): void {
    const wake = this.waiting;
    this.waiting = null;
    wake?.();
  }

  /** Whether the bound lets a job of `bytes` be sent (one always may when nothing is ahead). */
  private fits(bytes: number): boolean {
    return this.aheadBytes === 0 || this.aheadBytes + bytes <= AHEAD_BYTES;
  }

  /** The next planned job to send, from the last backwards, down to the run's place; undefined when none is left. */
  private nextToSend(): Job | undefined {
    while (this.tail > this.head) {
      const job = this.jobs[this.tail - 1];
      if (job?.state === 'planned') return job;
      this.tail -= 1;
    }
    return undefined;
  }

  /** Sends the last planned sessions to the workers with room for them, while the bound allows. */
  private send(): void {
    if (this.closed) return;
    for (;;) {
      const best = leastBusy(this.slots, JOBS_PER_WORKER);
      if (best === null) return;
      const job = this.nextToSend();
      if (job === undefined || !this.fits(job.bytes)) return;
      this.tail = job.index;
      job.state = 'worker';
      job.held = job.bytes;
      this.aheadBytes += job.bytes;
      job.slot = best;
      best.running.add(job);
      const message: BuildJob = { id: job.index, files: job.files, content: this.content, cache: this.cache };
      best.worker.postMessage(message);
    }
  }

  /**
   * Whether the run waits for the workers to build `job` (planned, past the run's share): while a
   * worker builds something, or the bound lets the next session be sent; else the run builds it.
   */
  private leftToWorkers(job: Job): boolean {
    if (job.index < this.shareEnd || this.closed) return false;
    if (this.slots.some((slot) => slot.alive && slot.running.size > 0)) return true;
    const next = this.nextToSend();
    return next !== undefined && this.slots.some((slot) => slot.alive) && this.fits(next.bytes);
  }

  /**
   * The session of `files` built alone, when a worker built it; null when the run is to build it
   * (not planned, not sent, too big, or its build failed). Sessions planned before it that were
   * not taken are dropped. The run takes one session at a time (a second `take` while one waits is
   * not supported: there is one waiter).
   */
  async take(files: ClaudeSessionFiles): Promise<BuiltAhead | null> {
    const job = this.byFiles.get(files);
    if (job === undefined || job.index < this.head) return null;
    this.byFiles.delete(files);
    for (let i = this.head; i < job.index; i += 1) {
      const passed = this.jobs[i];
      if (passed === undefined) continue;
      // A worker that has not started it passes over it.
      Atomics.store(this.owners, i, RUN_OWNS);
      this.release(passed, 'dropped');
    }
    // The workers may still be sent this one (the run waits for it past its share), not those before.
    this.head = job.index;
    // The run reads files synchronously, for the most part: the workers' results (and so their
    // next jobs) come in only when it lets the event loop turn, once per session.
    if (this.slots.some((slot) => slot.alive && slot.running.size > 0))
      await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      return await this.takeJob(job);
    } finally {
      this.head = job.index + 1;
      this.waiting = null;
      this.send();
    }
  }

  private async takeJob(job: Job): Promise<BuiltAhead | null> {
    for (;;) {
      if (job.state === 'planned' && !this.leftToWorkers(job)) {
        // Not sent: the run builds it; the workers stop short of it.
        Atomics.store(this.owners, job.index, RUN_OWNS);
        this.leaveToRun(job);
        return null;
      }
      if (
        job.state === 'worker' &&
        job.index < this.shareEnd &&
        Atomics.compareExchange(this.owners, job.index, UNOWNED, RUN_OWNS) === UNOWNED
      ) {
        // Sent, not started: the worker will pass over it.
        this.leaveToRun(job);
        return null;
      }
      if (job.state === 'built') {
        const built = job.built;
        // Taken: it no longer counts as built ahead.
        this.leaveToRun(job);
        if (built === null) return null;
        this.taken.byWorkers += 1;
        const encoded = posted(built.session);
        return { session: decodeSession(encoded), asked: unpackKeys(built.asked), stamps: job.stamps, encoded };
      }
      if (job.state !== 'worker' && job.state !== 'planned') return null;
      if (this.closed) return null;
      // Woken by any result or a worker's end: a session past the run's share may have to be built here.
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeUp();
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
