/**
 * Codex rollouts as sessions (formats.md §2.1): one `rollout-<local time>-<uuid>.jsonl` per
 * session, its id the UUID in the name (else `session_meta.id`). A rollout found both in
 * `sessions/` and `archived_sessions/` is read once, from `sessions/` (what ccusage does); the
 * copy left out is reported.
 */
import { basename, sep } from 'node:path';
import type { IngestIssue } from '../../session/model.js';
import { asObject, asString } from '../json-value.js';
import type { FoundLog } from '../walk-logs.js';

export type CodexSessionFiles = { readonly sessionId: string; readonly file: string };

const ROLLOUT_ID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

function sessionIdOf(log: FoundLog): string {
  const fromName = ROLLOUT_ID.exec(basename(log.path))?.[1];
  if (fromName !== undefined) return fromName;
  const meta = log.head?.['type'] === 'session_meta' ? asString(asObject(log.head['payload'])?.['id']) : undefined;
  return meta ?? basename(log.path, '.jsonl');
}

function isArchived(path: string): boolean {
  return path.split(sep).includes('archived_sessions');
}

/** One session per rollout, sorted by id; duplicates by id keep the `sessions/` copy. */
export function groupCodexFiles(found: readonly FoundLog[]): { readonly sessions: CodexSessionFiles[]; readonly issues: IngestIssue[] } {
  const byId = new Map<string, string>();
  const issues: IngestIssue[] = [];
  for (const log of found) {
    const sessionId = sessionIdOf(log);
    const previous = byId.get(sessionId);
    if (previous === undefined) {
      byId.set(sessionId, log.path);
      continue;
    }
    const keepNew = isArchived(previous) && !isArchived(log.path);
    const [kept, dropped] = keepNew ? [log.path, previous] : [previous, log.path];
    byId.set(sessionId, kept);
    issues.push({ file: dropped, line: 0, reason: `another rollout of session ${sessionId} was found (${kept}); this copy is not read` });
  }
  const sessions = [...byId].map(([sessionId, file]) => ({ sessionId, file }));
  sessions.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  return { sessions, issues };
}
