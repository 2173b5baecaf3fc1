/**
 * Grouping Claude Code transcripts into sessions (formats.md §1.1): `<project>/<sessionId>.jsonl`
 * is a main transcript; `<project>/<sessionId>/subagents/agent-<id>.jsonl` (2.1.x) and
 * `<project>/agent-<id>.jsonl` (some 2.0.x, parent read from its `sessionId` field) are subagent
 * files of that session. A subagent file whose main transcript was not found is a session of its
 * own that names its parent.
 */
import { basename, dirname } from 'node:path';
import { asString } from '../json-value.js';
import type { FoundLog } from '../walk-logs.js';

export type ClaudeAgentFile = { readonly file: string; readonly agentId: string };

/** The files of one Claude Code session. */
export type ClaudeSessionFiles = {
  readonly sessionId: string;
  readonly mainFile: string | null;
  readonly agentFiles: readonly ClaudeAgentFile[];
  readonly parentSessionId: string | null;
  /** The encoded-cwd directory the transcript sits in (`-home-me-app`). */
  readonly projectDir: string | null;
};

const AGENT_FILE = /^agent-(.+)\.jsonl$/;

function byId<T extends { readonly sessionId: string }>(a: T, b: T): number {
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/** Groups detected Claude Code files by session (sorted by id; subagent files by path). */
export function groupClaudeFiles(found: readonly FoundLog[]): ClaudeSessionFiles[] {
  const mains = new Map<string, { file: string; projectDir: string }>();
  const agents = new Map<string, { file: string; agentId: string; projectDir: string | null }[]>();
  for (const log of found) {
    const name = basename(log.path);
    const agent = AGENT_FILE.exec(name);
    if (agent === null) {
      const sessionId = name.slice(0, -'.jsonl'.length);
      if (!mains.has(sessionId)) mains.set(sessionId, { file: log.path, projectDir: basename(dirname(log.path)) });
      continue;
    }
    const agentId = agent[1] ?? name;
    const dir = dirname(log.path);
    const nested = basename(dir) === 'subagents';
    const parent = nested ? basename(dirname(dir)) : (asString(log.head?.['sessionId']) ?? null);
    const projectDir = nested ? basename(dirname(dirname(dir))) : basename(dir);
    const key = parent ?? `agent-${agentId}`;
    const list = agents.get(key) ?? [];
    list.push({ file: log.path, agentId, projectDir });
    agents.set(key, list);
  }
  const sessions: ClaudeSessionFiles[] = [];
  for (const [sessionId, main] of mains) {
    const agentFiles = (agents.get(sessionId) ?? []).map(({ file, agentId }) => ({ file, agentId }));
    agents.delete(sessionId);
    sessions.push({ sessionId, mainFile: main.file, agentFiles, parentSessionId: null, projectDir: main.projectDir });
  }
  for (const [parent, list] of agents) {
    for (const { file, agentId, projectDir } of list) {
      sessions.push({ sessionId: `agent-${agentId}`, mainFile: null, agentFiles: [{ file, agentId }], parentSessionId: parent.startsWith('agent-') ? null : parent, projectDir });
    }
  }
  return sessions.sort(byId);
}
