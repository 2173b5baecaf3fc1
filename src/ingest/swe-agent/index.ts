/**
 * The SWE-agent adapter: a `.traj` becomes a totals-only session (`Session.totalsOnly`, no
 * requests): it is counted in reports and never replayed. Bad content becomes ingest issues.
 */
import { errorMessage } from '../../session/errors.js';
import { readFile } from 'node:fs/promises';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { SweAgentSessionFiles } from './discover.js';
import { parseTrajectory } from './trajectory.js';

export { groupSweAgentFiles, type SweAgentSessionFiles } from './discover.js';
export { parseTrajectory, type TrajectoryReading } from './trajectory.js';

/** Reads one trajectory's totals into a session without requests. */
export async function loadSweAgentSession(
  files: SweAgentSessionFiles,
  _options: { readonly content: ContentMode },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  let totalsOnly: Session['totalsOnly'] = null;
  try {
    const reading = parseTrajectory(await readFile(files.file, 'utf8'));
    if (reading.kind === 'invalid') issues.push({ file: files.file, line: 0, reason: reading.reason });
    else {
      totalsOnly = reading.totals;
      for (const problem of reading.problems) issues.push({ file: files.file, line: 0, reason: problem });
    }
  } catch (error) {
    issues.push({ file: files.file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  return {
    id: files.sessionId,
    source: 'swe-agent',
    title: files.sessionId,
    project: null,
    files: [files.file],
    items: [],
    requests: [],
    events: [],
    issues,
    parentSessionId: null,
    // A trajectory that cannot be read is still listed, with zero totals and the issue that says why.
    totalsOnly: totalsOnly ?? { promptTokens: 0, outputTokens: 0, requests: 0 },
  };
}
