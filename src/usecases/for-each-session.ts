/**
 * The ingest step of a command: discover sessions under the paths and hand them over one at a
 * time, collecting every ingest issue (discovery's and each session's) for the report.
 */
import { discoverSessions, type IngestOptions, loadSession, newIngestRun } from '../ingest/index.js';
import type { IngestIssue, Session } from '../session/model.js';

/** Loads each session under `paths` in turn and calls `use` with it; returns all ingest issues. */
export async function forEachSession(
  paths: readonly string[],
  options: IngestOptions,
  use: (session: Session) => void | Promise<void>,
  onDiscovered?: (sessions: number) => void,
): Promise<readonly IngestIssue[]> {
  const { sources, issues: discoveryIssues } = await discoverSessions(paths);
  onDiscovered?.(sources.length);
  const issues: IngestIssue[] = [...discoveryIssues];
  // One run: a response counted by one session is not counted again by a resumed copy in another.
  const run = options.run ?? newIngestRun();
  for (const source of sources) {
    const session = await loadSession(source, { ...options, run });
    issues.push(...session.issues);
    await use(session);
  }
  return issues;
}
