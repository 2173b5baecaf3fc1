/** SWE-agent trajectories as sessions (formats.md §5): one `<instance>.traj` per session, its id the instance name. */
import { basename } from 'node:path';
import type { FoundLog } from '../walk-logs.js';

export type SweAgentSessionFiles = { readonly sessionId: string; readonly file: string };

/** One session per `.traj` file, sorted by id. */
export function groupSweAgentFiles(found: readonly FoundLog[]): SweAgentSessionFiles[] {
  return found
    .map((log) => ({ sessionId: basename(log.path, '.traj'), file: log.path }))
    .sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.file < b.file ? -1 : 1));
}
