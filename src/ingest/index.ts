/**
 * Ingest entry: find sessions under paths and load them into the normalized model, one at a time
 * (a caller that summarizes can drop each session before loading the next). One folder per log
 * format; the format is detected per file (`detect-format.ts`) and directories are searched for
 * every format. Adding a format = a discover + a load in its folder and a case here.
 */
import { stat } from 'node:fs/promises';
import { CachecostError, errorMessage } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';
import {
  type BuildAhead,
  BuildWorkers,
  claudeCompanionFiles,
  type ClaudeLoadOptions,
  type ClaudeSessionFiles,
  groupClaudeFiles,
  loadClaudeSession,
  loadClaudeSessionNow,
  type ParallelParse,
  type ParseAhead,
  type ResponseClaims,
  startClaudeBuildAhead,
  startClaudeParseAhead,
} from './claude-code/index.js';
import { type CodexSessionFiles, groupCodexFiles } from './codex/discover.js';
import type { ContentMode } from './content-mode.js';
import { notRegularReason } from './dir-entry.js';
import type { ParseCache } from './parse-cache.js';
import { RunPack, stampFiles } from './run-pack.js';
import { discoverFreecode, type FreecodeSessionFiles } from './freecode/discover.js';
import { type OpencodeSessionFiles, groupOpencodeFiles } from './opencode/discover.js';
import { type OpenhandsSessionFiles, groupOpenhandsFiles } from './openhands/discover.js';
import { type SweAgentSessionFiles, groupSweAgentFiles } from './swe-agent/discover.js';
import { detectFormatCached, type FoundLog, walkLogs } from './walk-logs.js';

export type { ContentMode } from './content-mode.js';
export { openParseCache, type ParseCache } from './parse-cache.js';
export type { FoundLog } from './walk-logs.js';
export type { RunPack } from './run-pack.js';
export type { BuildAhead, BuildWorkers, ParallelParse, ParseAhead, WorkerScript } from './claude-code/index.js';

/** A session found on disk, not yet read (plain data: it is sent to worker threads). */
export type SessionSource =
  | { readonly format: 'freecode'; readonly sessionId: string; readonly files: FreecodeSessionFiles }
  | { readonly format: 'claude-code'; readonly sessionId: string; readonly files: ClaudeSessionFiles }
  | { readonly format: 'codex'; readonly sessionId: string; readonly files: CodexSessionFiles }
  | { readonly format: 'opencode'; readonly sessionId: string; readonly files: OpencodeSessionFiles }
  | { readonly format: 'openhands'; readonly sessionId: string; readonly files: OpenhandsSessionFiles }
  | { readonly format: 'swe-agent'; readonly sessionId: string; readonly files: SweAgentSessionFiles };

export type IngestOptions = {
  readonly content: ContentMode;
  /** The parsed-line cache (`parse-cache.ts`); absent or null = parse every line. Used in `sizes` mode. */
  readonly cache?: ParseCache | null;
  /**
   * Shared by the sessions of one run (`newIngestRun`): a response a session loaded earlier already
   * counted is not counted again (Claude Code resumed copies, formats.md §1.5). Without it each
   * session is read on its own.
   */
  readonly run?: IngestRun;
  /**
   * The run pack of the paths being read (`openRunPack`): sessions unchanged since it was written
   * are served from it. Used in `sizes` and `usage` modes.
   */
  readonly pack?: RunPack | null;
  /** Transcripts being parsed ahead on worker threads (`startParseAhead`); absent or null = parse here. */
  readonly ahead?: ParseAhead | null;
  /** Sessions being built ahead on worker threads (`startBuildAhead`); absent or null = build here. */
  readonly builds?: BuildAhead | null;
  /**
   * Whether the caller reads the sessions' items (default true). The bill does not: sessions served
   * from the run pack then leave their items on disk (`run-pack.ts`).
   */
  readonly readsItems?: boolean;
};

/** Threads at most (the main thread and the workers): past a few, the main thread building sessions is the bottleneck. */
const MAX_PARSE_THREADS = 4;
/**
 * Threads a run uses by default, where the machine has the cores: the main thread plus one worker
 * building whole sessions from the other end (`build-ahead.ts`), once there are at least
 * `AUTOMATIC_MIN_BYTES` of transcripts to read. Measured on an idle 2-core machine
 * (`node bench/parse-threads.mjs --runs 5 --corpora 12,48 --threads 1,2`, README, performance): a
 * worker saved ≈ 0.3 s of wall time on 269 MB (report 2.22 → 1.87 s, sessions 2.23 → 1.95 s) and
 * lost ≈ 0.2 s on 67 MB (0.87 → 1.06 s), for ≈ 0.7 s more CPU either way: mostly V8's helper
 * threads compiling the hot code again for the worker's isolate (≈ 0.3 s) and the worker's start
 * (60–90 ms), measured by thread in the README. The gain grows with the bytes (≈ 2.5 ms of
 * wall time per MB, less ≈ 0.37 s fixed): break-even near 150 MB. More workers were not measured
 * to gain on 2 cores, and a machine with more was not measured: one worker is the default
 * everywhere.
 * `$CACHECOST_THREADS` overrides (1 = none), whatever the size.
 */
const AUTOMATIC_THREADS = 2;
/** Bytes of transcripts to read from which the automatic worker starts (the break-even above, rounded up). */
export const AUTOMATIC_MIN_BYTES = 160 << 20;
/**
 * The automatic worker starts only where the cores busy with other work (the run's own main
 * thread included: `parallelParse`'s `busyCores`) leave at least this much of them idle (on 2
 * cores: ≤ 1.5 busy). A worker pays only with a core to itself:
 * on this 2-core machine it saved ≈ 0.3 s on 269 MB at a load average of ≈ 1.3 (the benchmark's
 * own runs), and lost at 2–3.5 (`report` 2.43 → 3.36 s) and at 4–6.7 (3.76 → 4.49 s; 3.81 →
 * 6.18 s): a second thread only takes CPU from the first (README, performance).
 */
export const AUTOMATIC_MIN_IDLE_CORES = 0.5;

/**
 * How many threads a run uses, and how: `threads` (`$CACHECOST_THREADS`, whatever the size of the
 * logs and the load; 1 = everything in the main thread), else `AUTOMATIC_THREADS` (capped by
 * `availableCores`) from `AUTOMATIC_MIN_BYTES` to read, where `busyCores` (how many cores are
 * busy, measured or the load average; 0 when unknown) leaves `AUTOMATIC_MIN_IDLE_CORES` idle;
 * the workers build whole sessions (`build-ahead.ts`) and the run builds every session no worker
 * has started.
 * Without `sessions` (a library caller's `parallel` only), workers parse transcripts for the main
 * thread to build (`ParseAhead`).
 */
export function parallelParse(availableCores: number, threads?: number, busyCores = 0): ParallelParse {
  if (threads === undefined) {
    const idle = availableCores - (Number.isFinite(busyCores) ? busyCores : 0);
    const wanted = idle >= AUTOMATIC_MIN_IDLE_CORES ? AUTOMATIC_THREADS : 1;
    const automatic = Math.max(1, Math.min(wanted, availableCores, MAX_PARSE_THREADS));
    return {
      workers: automatic - 1,
      minBytes: AUTOMATIC_MIN_BYTES,
      mainShare: 1,
      sessions: true,
      earlyFromBytes: EARLY_MIN_BYTES,
    };
  }
  const workers = threads - 1;
  // One worker parses ~2.2 s of the 269 MB corpus while the main thread spends ~0.4 s building its
  // sessions: the main thread takes ~40% of the bytes; with more workers it only builds.
  const mainShare = workers === 1 ? 0.4 : 0;
  return { workers, minBytes: 0, mainShare };
}

/**
 * Starts parsing ahead the transcripts a run that loads `sources` in order (with a shared run, as
 * `forEachSession` does) will parse, when there are enough of them; close it when the run ends.
 * Claude Code transcripts only, in `sizes` and `usage` modes.
 */
export function startParseAhead(
  sources: readonly SessionSource[],
  options: IngestOptions & { readonly parallel: ParallelParse },
): ParseAhead | null {
  const sessions: ClaudeSessionFiles[] = [];
  for (const source of sources) if (source.format === 'claude-code') sessions.push(source.files);
  return startClaudeParseAhead(sessions, {
    content: options.content,
    withClaims: true,
    cache: options.cache ?? null,
    pack: options.pack ?? null,
    parallel: options.parallel,
  });
}

/**
 * Starts building ahead the Claude Code sessions a run that loads `sources` in order (with a
 * shared run, as `forEachSession` does) will build, when there are enough bytes of them; close it
 * when the run ends. In `sizes` and `usage` modes.
 */
export function startBuildAhead(
  sources: readonly SessionSource[],
  options: IngestOptions & { readonly parallel: ParallelParse; readonly warm?: BuildWorkers | null },
): BuildAhead | null {
  const sessions: ClaudeSessionFiles[] = [];
  for (const source of sources) if (source.format === 'claude-code') sessions.push(source.files);
  return startClaudeBuildAhead(sessions, {
    content: options.content,
    cache: options.cache ?? null,
    pack: options.pack ?? null,
    parallel: options.parallel,
    warm: options.warm ?? null,
  });
}

/**
 * Bytes of Claude Code transcripts found from which discovery starts the automatic worker
 * (`earlyParallel`): half the size from which the plan keeps it. A worker the plan then stops
 * cost ≈ 0.1 s of CPU, mostly on its own thread (started before discovery, forced, on the 19 MB of
 * `../shared/real-logs`: 0.93 → 1.04 s of CPU, loaded machine), little beside a run of ≥ 80 MB
 * (≥ 1.2 s); below, a run never pays it. Started when half is found, it has loaded its code by
 * the plan of a larger run.
 */
export const EARLY_MIN_BYTES = AUTOMATIC_MIN_BYTES / 2;

/**
 * When to start the build workers while the run discovers its sessions (`startBuildWorkers`):
 * their count, and the bytes of Claude Code transcripts discovery must have found first (0: before
 * discovery); null for none. A worker started then has loaded its code when the plan comes:
 * started after the plan, the automatic worker's first session came 280–475 ms after it on the
 * 269 MB corpus, against 49–134 ms started before discovery (bench/README.md).
 * - None in text mode (no session is built ahead), nor when the run pack of an earlier run over
 *   these paths was read (`packLoaded`, `RunPack.loaded`: it may serve the whole run; a warm
 *   re-run starts no worker).
 * - `explicit` threads (`$CACHECOST_THREADS`, a library caller's `parallel`): those, before
 *   discovery unless they say otherwise (`earlyFromBytes`).
 * - Else the automatic count as `parallelParse` gives it from the 1-minute load average (`load`),
 *   from `EARLY_MIN_BYTES` found: a worker where the machine has ≥ 2 cores and is not busy.
 *   Whether the run reaches `AUTOMATIC_MIN_BYTES` is known once it is planned: the run keeps the
 *   worker only if the plan and the idle gauge of discovery agree, and stops it at once otherwise
 *   (`BuildAhead.start`).
 */
export function earlyParallel(options: {
  readonly explicit: ParallelParse | undefined;
  readonly content: ContentMode;
  readonly packLoaded: boolean;
  readonly cores: number;
  readonly load: number;
}): { readonly parallel: ParallelParse; readonly fromBytes: number } | null {
  if (options.content === 'text' || options.packLoaded) return null;
  const parallel = options.explicit ?? parallelParse(options.cores, undefined, options.load);
  if (parallel.sessions !== true || parallel.workers < 1) return null;
  return { parallel, fromBytes: parallel.earlyFromBytes ?? 0 };
}

/**
 * Starts the workers of `startBuildAhead` before the run discovers its sessions (`earlyParallel`
 * says when); null when `parallel` asks for none. Pass them to `startBuildAhead`, which takes them
 * or stops them (when the plan asks for no worker or has fewer than `minBytes` to read).
 */
export function startBuildWorkers(parallel: ParallelParse): BuildWorkers | null {
  return parallel.sessions === true ? BuildWorkers.start(parallel) : null;
}

/** State shared by the sessions of one run, loaded one after another. */
export type IngestRun = { readonly claudeClaims: ResponseClaims };

/** A fresh run: load its sessions in discovery order so that the first claim is deterministic. */
export function newIngestRun(): IngestRun {
  return { claudeClaims: new Map() };
}

/**
 * The run pack of a run over `paths` in `content` mode (`run-pack.ts`), or null when there is no
 * cache or the mode is `text` (the pack would store the logs' content). Save it when the run ends.
 */
export function openRunPack(
  cache: ParseCache | null,
  content: ContentMode,
  paths: readonly string[],
  options: { readonly readsItems: boolean } = { readsItems: true },
): RunPack | null {
  return cache === null || content === 'text' ? null : RunPack.open(cache, content, paths, options);
}

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'ENOTDIR')
  );
}

/**
 * Finds every session under `paths`, FreeCode's first, then each other format's, each sorted by
 * id; `onFound` is called with each non-FreeCode log file as it is found. A missing path throws `CachecostError('PATH_NOT_FOUND')`; a file given by name that no
 * format claims throws `BAD_ARGUMENT`; inside directories such files are not logs and are passed over.
 */
export async function discoverSessions(
  paths: readonly string[],
  pack: RunPack | null = null,
  onFound: ((log: FoundLog) => void) | null = null,
): Promise<{ readonly sources: readonly SessionSource[]; readonly issues: readonly IngestIssue[] }> {
  const freecodePaths: string[] = [];
  const found: FoundLog[] = [];
  const add = (log: FoundLog): void => {
    found.push(log);
    onFound?.(log);
  };
  const issues: IngestIssue[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      const stats = await stat(path);
      // Opening a FIFO with no writer blocks forever; a socket or device is no log either.
      if (!stats.isDirectory() && !stats.isFile())
        throw new CachecostError('BAD_ARGUMENT', `cannot read ${path}: ${notRegularReason(stats)}`);
      isDirectory = stats.isDirectory();
    } catch (error) {
      if (error instanceof CachecostError) throw error;
      if (isMissing(error))
        throw new CachecostError('PATH_NOT_FOUND', `no such file or directory: ${path}`, { cause: error });
      throw new CachecostError('IO_ERROR', `cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
    if (isDirectory) {
      freecodePaths.push(path);
      const walked = await walkLogs(path, pack, onFound);
      found.push(...walked.found);
      issues.push(...walked.issues);
      continue;
    }
    let detection;
    try {
      detection = await detectFormatCached(path, pack);
    } catch (error) {
      throw new CachecostError('IO_ERROR', `cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
    if (detection === null) {
      throw new CachecostError(
        'BAD_ARGUMENT',
        `not a session log cachecost can read: ${path} (FreeCode, Claude Code, Codex, opencode, OpenHands or SWE-agent)`,
      );
    }
    if (detection.format === 'freecode') freecodePaths.push(path);
    else add({ ...detection, path });
    // A Claude Code transcript named alone brings its subagents' files: their requests are billed.
    if (detection.format === 'claude-code') {
      try {
        for (const log of await claudeCompanionFiles(path, pack)) add(log);
      } catch (error) {
        issues.push({ file: path, line: 0, reason: `cannot read its subagent files: ${errorMessage(error)}` });
      }
    }
  }
  const sources: SessionSource[] = [];
  if (freecodePaths.length > 0) {
    const freecode = await discoverFreecode(freecodePaths);
    issues.push(...freecode.issues);
    for (const files of freecode.sessions) sources.push({ format: 'freecode', sessionId: files.sessionId, files });
  }
  const unique = new Map<string, FoundLog>();
  for (const log of found) if (!unique.has(log.path)) unique.set(log.path, log);
  const logs = [...unique.values()];
  const of = (format: FoundLog['format']): FoundLog[] => logs.filter((log) => log.format === format);
  for (const files of groupClaudeFiles(of('claude-code')))
    sources.push({ format: 'claude-code', sessionId: files.sessionId, files });
  const codex = groupCodexFiles(of('codex'));
  issues.push(...codex.issues);
  for (const files of codex.sessions) sources.push({ format: 'codex', sessionId: files.sessionId, files });
  for (const files of groupOpencodeFiles(of('opencode')))
    sources.push({ format: 'opencode', sessionId: files.sessionId, files });
  const openhands = await groupOpenhandsFiles(of('openhands'));
  issues.push(...openhands.issues);
  for (const files of openhands.sessions) sources.push({ format: 'openhands', sessionId: files.sessionId, files });
  for (const files of groupSweAgentFiles(of('swe-agent')))
    sources.push({ format: 'swe-agent', sessionId: files.sessionId, files });
  return { sources, issues };
}

function claudeLoadOptions(options: IngestOptions): ClaudeLoadOptions {
  return {
    content: options.content,
    claims: options.run?.claudeClaims,
    cache: options.cache ?? null,
    pack: options.pack ?? null,
    ahead: options.ahead ?? null,
    builds: options.builds ?? null,
  };
}

/**
 * `loadSession`, returning the session itself (no promise) when the run pack serves it
 * (`loadClaudeSessionNow`, `packedSession`: a re-run serves hundreds of sessions, where a promise
 * and its awaits per session cost more than serving it); any other session comes as a promise.
 */
export function loadSessionNow(source: SessionSource, options: IngestOptions): Session | Promise<Session> {
  return source.format === 'claude-code'
    ? loadClaudeSessionNow(source.files, claudeLoadOptions(options))
    : (packedSession(source, options) ?? loadFromLogs(source, options));
}

/**
 * The log files a session of a format the run pack holds (besides Claude Code's) is built from,
 * all of them, in a fixed order; null for a format whose sessions are not kept there (opencode
 * reads a directory of storage files, OpenHands and SWE-agent are small).
 */
function packedFiles(source: SessionSource): string[] | null {
  switch (source.format) {
    case 'freecode': {
      const { rolloutFile, metaFile, messagesFile, memoryFile } = source.files;
      return [rolloutFile, metaFile, messagesFile, memoryFile].filter((file): file is string => file !== null);
    }
    case 'codex':
      return [source.files.file, ...(source.files.subagents ?? []).map((child) => child.file)];
    default:
      return null;
  }
}

/**
 * A FreeCode or Codex session from the run pack, when every file it was built from is as it was
 * (`RunPack.lookup`); else null. Such a session counts no response another session could count
 * (formats.md §1.5 is Claude Code's), so it is served as stored. Not in text mode (no pack).
 */
function packedSession(source: SessionSource, options: IngestOptions): Session | null {
  const pack = packOf(options);
  if (pack === null) return null;
  const paths = packedFiles(source);
  if (paths === null) return null;
  const hit = pack.lookup(packKeyOf(source, options.content), paths);
  return hit !== null && pack.serve(hit, undefined) ? hit.session() : null;
}

/** The run pack a load may serve from and store to: none in text mode (the pack keeps no content). */
function packOf(options: IngestOptions): RunPack | null {
  return options.content === 'text' ? null : (options.pack ?? null);
}

/**
 * A FreeCode or Codex session the pack did not serve, `load`ed from its logs and stored in the pack
 * when its files did not change while they were read.
 */
async function loadAndPack(
  source: SessionSource,
  options: IngestOptions,
  load: () => Promise<Session>,
): Promise<Session> {
  const pack = packOf(options);
  const paths = pack === null ? null : packedFiles(source);
  if (pack === null || paths === null) return load();
  const stamps = stampFiles(paths);
  const session = await load();
  pack.store(packKeyOf(source, options.content), paths, stamps, source.sessionId, session, []);
  return session;
}

/** A session's key in the run pack: its format, the content mode, and its files as discovery found them. */
function packKeyOf(source: SessionSource, content: ContentMode): string {
  return `${source.format}/session/${content}/1/${JSON.stringify(source.files)}`;
}

/**
 * Reads one session; bad content becomes the session's ingest issues, never an exception. The
 * adapters other than Claude Code's are loaded on first use: some load zod and their schemas,
 * which a run over Claude Code logs alone never needs.
 */
export async function loadSession(source: SessionSource, options: IngestOptions): Promise<Session> {
  return packedSession(source, options) ?? loadFromLogs(source, options);
}

/** `loadSession` once the run pack has not served the session. */
async function loadFromLogs(source: SessionSource, options: IngestOptions): Promise<Session> {
  switch (source.format) {
    case 'freecode':
      return loadAndPack(source, options, async () => {
        const { loadFreecodeSession } = await import('./freecode/index.js');
        return loadFreecodeSession(source.files, options);
      });
    case 'claude-code':
      return loadClaudeSession(source.files, claudeLoadOptions(options));
    case 'codex':
      return loadAndPack(source, options, async () => {
        const { loadCodexSession } = await import('./codex/index.js');
        return loadCodexSession(source.files, options);
      });
    case 'opencode': {
      const { loadOpencodeSession } = await import('./opencode/index.js');
      return loadOpencodeSession(source.files, options);
    }
    case 'openhands': {
      const { loadOpenhandsSession } = await import('./openhands/index.js');
      return loadOpenhandsSession(source.files, options);
    }
    case 'swe-agent': {
      const { loadSweAgentSession } = await import('./swe-agent/index.js');
      return loadSweAgentSession(source.files, options);
    }
    default: {
      const unreachable: never = source;
      throw new Error(`unknown format ${JSON.stringify(unreachable)}`);
    }
  }
}
