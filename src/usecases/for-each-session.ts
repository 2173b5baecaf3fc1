/**
 * The ingest step of a command: discover sessions under the paths and hand them over one at a
 * time, collecting every ingest issue (discovery's and each session's) for the report.
 */
import { availableParallelism, loadavg } from 'node:os';
import {
  discoverSessions,
  type IngestOptions,
  loadSession,
  newIngestRun,
  openRunPack,
  type ParallelParse,
  parallelParse,
  type BuildAhead,
  type ParseAhead,
  startBuildAhead,
  startBuildWorkers,
  startParseAhead,
} from '../ingest/index.js';
import { CachecostError } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';

export type ForEachSessionOptions = IngestOptions & {
  /** Threads that read the logs (`parallelParse`); default: its automatic count (one worker from a size, where the machine has the cores and they are not busy). */
  readonly parallel?: ParallelParse | undefined;
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
  use: (session: Session) => void | Promise<void>,
  onDiscovered?: (sessions: number) => void,
): Promise<readonly IngestIssue[]> {
  // With a cache: what this run reads is recorded in one pack, which the next run over the same
  // paths reads instead of the unchanged logs.
  const pack = openRunPack(options.cache ?? null, options.content, paths, { readsItems: options.readsItems ?? true });
  let ahead: ParseAhead | null = null;
  let builds: BuildAhead | null = null;
  // Unset: one worker where the cores and the load leave room for it (`parallelParse`).
  const parallel = options.parallel ?? parallelParse(availableParallelism(), undefined, loadavg()[0]);
  // Without a cache every session is read: workers that build sessions start now, loading their
  // code while discovery runs. With one, the run pack or the parse cache may serve the run, and
  // they start once it is planned (a re-run starts none).
  const warm = options.content !== 'text' && (options.cache ?? null) === null ? startBuildWorkers(parallel) : null;
  try {
    const { sources, issues: discoveryIssues } = await discoverSessions(paths, pack);
    onDiscovered?.(sources.length);
    const issues: IngestIssue[] = [...discoveryIssues];
    // One run: a response counted by one session is not counted again by a resumed copy in another.
    const run = options.run ?? newIngestRun();
    // Sessions are built ahead on worker threads (or their transcripts parsed there) while the run
    // takes them here, in the same order.
    if (parallel.sessions === true) builds = startBuildAhead(sources, { ...options, pack, parallel, warm });
    else ahead = startParseAhead(sources, { ...options, pack, parallel });
    for (const source of sources) {
      const session = await loadSession(source, { ...options, run, pack, ahead, builds });
      issues.push(...session.issues);
      await use(session);
    }
    await ahead?.close();
    await builds?.close();
    // A run the caller goes on with holds every claim, also those the pack let this one skip.
    if (options.run !== undefined) pack?.settle(run.claudeClaims);
    await pack?.save();
    return issues;
  } finally {
    // Workers started for a run that failed before it planned its sessions.
    warm?.stop();
    await ahead?.close();
    await builds?.close();
    // A run that failed writes no pack; the one it read is closed either way.
    pack?.close();
  }
}
