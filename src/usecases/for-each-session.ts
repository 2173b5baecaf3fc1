/**
 * The ingest step of a command: discover sessions under the paths and hand them over one at a
 * time, collecting every ingest issue (discovery's and each session's) for the report.
 */
import { statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import {
  type BuildWorkers,
  discoverSessions,
  type FoundLog,
  type IngestOptions,
  loadSessionNow,
  newIngestRun,
  earlyParallel,
  openRunPack,
  type ParallelParse,
  parallelParse,
  type BuildAhead,
  type ParseAhead,
  type SessionSource,
  startBuildAhead,
  startBuildWorkers,
  startParseAhead,
} from '../ingest/index.js';
import { CachecostError } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';

export type ForEachSessionOptions = IngestOptions & {
  /** Threads that read the logs (`parallelParse`); default: its automatic count (one worker from a size, where the machine has the cores and they are not busy). */
  readonly parallel?: ParallelParse | undefined;
  /** Sessions other threads load and use instead of this one (`SessionShare`); absent = every session here. */
  readonly share?: SessionShare | undefined;
};

/**
 * Sessions that other threads load and use instead of this one (`simulate`'s replay workers). The
 * run goes on in discovery order and still returns every ingest issue in that order.
 */
export type SessionShare = {
  /**
   * The run is planned: its sessions, the threads `parallelParse` gives it (explicit, or automatic
   * from the idle cores), and how many cores were busy while it discovered them (0 with explicit
   * threads; `busyCores`).
   */
  readonly start: (
    sources: readonly SessionSource[],
    plan: { readonly parallel: ParallelParse; readonly busyCores: number },
  ) => void;
  /** Asked once per session, in order, before the run would load it: true = another thread has taken it (`use` is not called). */
  readonly took: (index: number) => boolean;
  /** Once the run has used every session it kept: the ingest issues of each session another thread took, by index. */
  readonly finish: () => Promise<ReadonlyMap<number, readonly IngestIssue[]>>;
};

/**
 * The threads `$CACHECOST_THREADS` asks for (a whole number ≥ 1; 1 = everything in the main
 * thread), the workers building whole sessions (`build-ahead.ts`); undefined when unset (then
 * `parallelParse`'s automatic count). Anything else is a `BAD_ARGUMENT` error.
 */
export function parallelFromEnv(env: Readonly<Record<string, string | undefined>>): ParallelParse | undefined {
  const raw = env['CACHECOST_THREADS']?.trim();
  if (raw === undefined || raw === '') return undefined;
  const threads = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(threads) || threads < 1)
    throw new CachecostError(
      'BAD_ARGUMENT',
      `CACHECOST_THREADS must be a whole number of threads, at least 1 (got ${JSON.stringify(raw)})`,
    );
  return { ...parallelParse(availableParallelism(), threads), sessions: true, mainShare: 1 };
}

/** Loads each session under `paths` in turn and calls `use` with it; returns all ingest issues. */
export async function forEachSession(
  paths: readonly string[],
  options: ForEachSessionOptions,
  use: (session: Session, index: number) => void | Promise<void>,
  onDiscovered?: (sessions: number) => void,
): Promise<readonly IngestIssue[]> {
  // With a cache: what this run reads is recorded in one pack, which the next run over the same
  // paths reads instead of the unchanged logs.
  const pack = openRunPack(options.cache ?? null, options.content, paths, { readsItems: options.readsItems ?? true });
  let ahead: ParseAhead | null = null;
  let builds: BuildAhead | null = null;
  const explicit = options.parallel;
  const cores = availableParallelism();
  // Workers that build sessions start now or while discovery runs, loading their code meanwhile,
  // unless the run pack of an earlier run may serve this one (a warm re-run starts none). The
  // automatic worker starts once discovery has found `EARLY_MIN_BYTES` of transcripts, where the
  // load average leaves it a core, and is kept only if the plan reaches its size and the idle
  // gauge below agrees; else it is stopped unused (`earlyParallel`).
  const early = earlyParallel({
    explicit,
    content: options.content,
    packLoaded: pack?.loaded ?? false,
    cores,
    load: loadavg()[0] ?? 0,
  });
  const workers: { warm: BuildWorkers | null; started: boolean; found: number } = {
    warm: null,
    started: false,
    found: 0,
  };
  const startEarly = (parallel: ParallelParse): void => {
    workers.started = true;
    workers.warm = startBuildWorkers(parallel);
  };
  if (early !== null && early.fromBytes === 0) startEarly(early.parallel);
  const onFound =
    early === null || workers.started
      ? null
      : (log: FoundLog): void => {
          if (workers.started || log.format !== 'claude-code') return;
          try {
            workers.found += statSync(log.path).size;
          } catch {
            // Unreadable: reading it reports why.
          }
          if (workers.found >= early.fromBytes) startEarly(early.parallel);
        };
  // Unset: the automatic count, decided once the run is planned, from how busy the cores were
  // while it discovered its sessions.
  const cpuBefore = explicit === undefined ? cpuSample() : null;
  try {
    const { sources, issues: discoveryIssues } = await discoverSessions(paths, pack, onFound);
    // The pack's eager regions were read on the thread pool while discovery ran on this thread.
    await pack?.ready();
    onDiscovered?.(sources.length);
    const busy = explicit === undefined ? busyCoresSince(cpuBefore, cores) : 0;
    const parallel = explicit ?? parallelParse(cores, undefined, busy);
    const issues: IngestIssue[] = [...discoveryIssues];
    // One run: a response counted by one session is not counted again by a resumed copy in another.
    const run = options.run ?? newIngestRun();
    // Sessions are built ahead on worker threads (or their transcripts parsed there) while the run
    // takes them here, in the same order.
    if (parallel.sessions === true)
      builds = startBuildAhead(sources, { ...options, pack, parallel, warm: workers.warm });
    else ahead = startParseAhead(sources, { ...options, pack, parallel });
    const share = options.share;
    share?.start(sources, { parallel, busyCores: busy });
    // With a share, each session's issues wait for those of the sessions before it.
    const kept = new Map<number, readonly IngestIssue[]>();
    // One options object for every session; a session the pack serves comes without a promise,
    // and a `use` that returns none is not awaited (a re-run serves hundreds of sessions).
    const loadOptions = { ...options, run, pack, ahead, builds };
    for (let index = 0; index < sources.length; index += 1) {
      if (share?.took(index) === true) continue;
      const loaded = loadSessionNow(sources[index]!, loadOptions);
      const session = loaded instanceof Promise ? await loaded : loaded;
      if (share === undefined) issues.push(...session.issues);
      else kept.set(index, session.issues);
      const used = use(session, index);
      if (used !== undefined) await used;
    }
    if (share !== undefined) {
      const taken = await share.finish();
      for (let index = 0; index < sources.length; index += 1) {
        const sessionIssues = kept.get(index) ?? taken.get(index);
        if (sessionIssues === undefined) throw new Error(`invariant: session ${index} was loaded by no thread`);
        issues.push(...sessionIssues);
      }
    }
    await ahead?.close();
    await builds?.close();
    // A run the caller goes on with holds every claim, also those the pack let this one skip.
    if (options.run !== undefined) pack?.settle(run.claudeClaims);
    await pack?.save();
    return issues;
  } finally {
    // Workers started for a run that failed before it planned its sessions.
    workers.warm?.stop();
    await ahead?.close();
    await builds?.close();
    // A run that failed writes no pack; the one it read is closed either way.
    pack?.close();
  }
}

/** The machine's idle CPU time so far (every core) and this process's CPU time (every thread), in milliseconds, and when they were read. */
type CpuSample = { readonly at: number; readonly idleMs: number; readonly ownMs: number };

function cpuSample(): CpuSample {
  let idleMs = 0;
  for (const cpu of cpus()) idleMs += cpu.times.idle;
  const own = process.cpuUsage();
  // The monotonic clock without the global `performance`, whose first use loads perf_hooks (~3 ms).
  return { at: Number(process.hrtime.bigint()) / 1e6, idleMs, ownMs: (own.user + own.system) / 1000 };
}

/** Windows shorter than this say too little about the load (the counters tick every 10 ms). */
const MIN_SAMPLE_MS = 50;

/**
 * How many of `cores` were busy since `before` (this run's main thread included): the cores less
 * the idle time per millisecond over the window. This process counts for at most one core: a
 * worker it started before discovery (`earlyParallel`) busies another while it loads its code,
 * and is not other work taking the core it would use. A window too short to tell (a small run,
 * which keeps no worker anyway) or a system without idle counters gives the 1-minute load average.
 * The idle time of the last moments says whether a worker would have a core to itself; the load
 * average lags by a minute and counts the runs just before this one.
 */
function busyCoresSince(before: CpuSample | null, cores: number): number {
  if (before === null) return busyFromLoad(loadavg()[0] ?? 0);
  const now = cpuSample();
  const window = now.at - before.at;
  if (window < MIN_SAMPLE_MS || now.idleMs <= before.idleMs) return busyFromLoad(loadavg()[0] ?? 0);
  return busyCores(cores, (now.idleMs - before.idleMs) / window, (now.ownMs - before.ownMs) / window);
}

/**
 * Busy cores from the 1-minute load average, this run's main thread included: it is busy now,
 * while the average lags by a minute (just after an idle minute it reads ~0, which once let the
 * replay worker start beside the main thread on 2 cores, where it lost: bench/README.md, sim11b).
 */
export function busyFromLoad(load: number): number {
  return Math.max(1, load);
}

/**
 * Busy cores from the idle cores (`idle`) and this process's cores (`own`), both averaged over a
 * window: the busy cores less what this process used beyond one core (`busyCoresSince`).
 */
export function busyCores(cores: number, idle: number, own: number): number {
  const busy = Math.max(0, cores - idle);
  return Math.max(0, busy - Math.max(0, own - 1));
}
