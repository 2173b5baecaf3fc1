/**
 * Codex rollouts as sessions (formats.md §2.1): one `rollout-<local time>-<uuid>.jsonl` per
 * session, its id the UUID in the name (else `session_meta.id`). A rollout found both in
 * `sessions/` and `archived_sessions/` is read once, from `sessions/` (what ccusage does); the
 * copy left out is reported. A sub-agent rollout (first `session_meta` with `source.subagent.
 * thread_spawn.parent_thread_id`) whose parent rollout was found is read with the parent's session
 * (its requests attributed through `agentId`, like Claude Code subagents), at any depth; without its
 * parent it is a session of its own that names the parent.
 */
import { basename, sep } from 'node:path';
import type { IngestIssue } from '../../session/model.js';
import { asObject, asString } from '../json-value.js';
import type { FoundLog } from '../walk-logs.js';

export type CodexSubagentFile = { readonly file: string; readonly agentId: string };

export type CodexSessionFiles = {
  readonly sessionId: string;
  readonly file: string;
  /** Sub-agent rollouts spawned from this session (directly or through another sub-agent), by id. */
  readonly subagents?: readonly CodexSubagentFile[];
};

const ROLLOUT_ID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
/** Sub-agents spawn sub-agents; a cycle in bad data must not loop. */
const MAX_SPAWN_DEPTH = 64;

function sessionIdOf(log: FoundLog): string {
  const fromName = ROLLOUT_ID.exec(basename(log.path))?.[1];
  if (fromName !== undefined) return fromName;
  const meta = log.head?.['type'] === 'session_meta' ? asString(asObject(log.head['payload'])?.['id']) : undefined;
  return meta ?? basename(log.path, '.jsonl');
}

/** The thread that spawned this rollout as a sub-agent, from its first `session_meta`; null otherwise. */
function spawnParentOf(log: FoundLog): string | null {
  if (log.head?.['type'] !== 'session_meta') return null;
  const source = asObject(asObject(log.head['payload'])?.['source']);
  const spawn = asObject(asObject(source?.['subagent'])?.['thread_spawn']);
  return asString(spawn?.['parent_thread_id']) ?? null;
}

function isArchived(path: string): boolean {
  return path.split(sep).includes('archived_sessions');
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One session per rollout, sorted by id; duplicates by id keep the `sessions/` copy; sub-agents join their root. */
export function groupCodexFiles(found: readonly FoundLog[]): {
  readonly sessions: CodexSessionFiles[];
  readonly issues: IngestIssue[];
} {
  const byId = new Map<string, FoundLog>();
  const issues: IngestIssue[] = [];
  for (const log of [...found].sort((a, b) => byString(a.path, b.path))) {
    const sessionId = sessionIdOf(log);
    const previous = byId.get(sessionId);
    if (previous === undefined) {
      byId.set(sessionId, log);
      continue;
    }
    const keepNew = isArchived(previous.path) && !isArchived(log.path);
    const [kept, dropped] = keepNew ? [log, previous] : [previous, log];
    byId.set(sessionId, kept);
    issues.push({
      file: dropped.path,
      line: 0,
      reason: `another rollout of session ${sessionId} was found (${kept.path}); this copy is not read`,
    });
  }
  /** The top-most ancestor found on disk, or null when the rollout is not a found sub-agent's. */
  const rootOf = (id: string): string | null => {
    let current = id;
    let root: string | null = null;
    for (let depth = 0; depth < MAX_SPAWN_DEPTH; depth += 1) {
      const log = byId.get(current);
      const parent = log === undefined ? null : spawnParentOf(log);
      if (parent === null || parent === id || !byId.has(parent)) return root;
      root = parent;
      current = parent;
    }
    return root;
  };
  const subagents = new Map<string, CodexSubagentFile[]>();
  const roots: string[] = [];
  for (const [sessionId, log] of byId) {
    const root = rootOf(sessionId);
    if (root === null) {
      roots.push(sessionId);
      continue;
    }
    const list = subagents.get(root) ?? [];
    list.push({ file: log.path, agentId: sessionId });
    subagents.set(root, list);
  }
  const sessions: CodexSessionFiles[] = roots.sort(byString).map((sessionId) => {
    const file = byId.get(sessionId)?.path ?? '';
    const children = (subagents.get(sessionId) ?? []).sort((a, b) => byString(a.agentId, b.agentId));
    return children.length === 0 ? { sessionId, file } : { sessionId, file, subagents: children };
  });
  return { sessions, issues };
}
