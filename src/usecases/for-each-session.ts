/**
 * The ingest step of a command: discover sessions under the paths and hand them over one at a
 * time, collecting every ingest issue (discovery's and each session's) for the report.
 */
import { discoverSessions, type IngestOptions, loadSession, newIngestRun, openRunPack } from '../ingest/index.js';
import type { IngestIssue, Session } from '../session/model.js';

/** Loads each session under `paths` in turn and calls `use` with it; returns all ingest issues. */
export async function forEachSession(
  paths: readonly string[],
  options: IngestOptions,
  use: (session: Session) => void | Promise<void>,
  onDiscovered?: (sessions: number) => void,
): Promise<readonly IngestIssue[]> {
  // With a cache: what this run reads is recorded in one pack, which the next run over the same
  // paths reads instead of the unchanged logs.
  const pack = openRunPack(options.cache ?? null, options.content, paths, { readsItems: options.readsItems ?? true });
  try {
    const { sources, issues: discoveryIssues } = await discoverSessions(paths, pack);
    onDiscovered?.(sources.length);
    const issues: IngestIssue[] = [...discoveryIssues];
    // One run: a response counted by one session is not counted again by a resumed copy in another.
    const run = options.run ?? newIngestRun();
    for (const source of sources) {
      const session = await loadSession(source, { ...options, run, pack });
      issues.push(...session.issues);
      await use(session);
    }
    // A run the caller goes on with holds every claim, also those the pack let this one skip.
    if (options.run !== undefined) pack?.settle(run.claudeClaims);
    await pack?.save();
    return issues;
  } finally {
    // A run that failed writes no pack; the one it read is closed either way.
    pack?.close();
  }
}
