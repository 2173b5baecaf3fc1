/**
 * Grouping Claude Code transcripts into sessions (formats.md §1.1): `<project>/<sessionId>.jsonl`
 * is a main transcript; `<project>/<sessionId>/subagents/agent-<id>.jsonl` (2.1.x) and
 * `<project>/agent-<id>.jsonl` (some 2.0.x) are subagent files. A subagent file belongs to the
 * session its records name (`sessionId`), not to the folder it sits in; the folder only stands in
 * when the first record names none. One session id can have several main transcripts (the same
 * session under two project folders, or a copy): they are all read, as one session. A subagent
 * file whose main transcript was not found is a session of its own that names its parent.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { asString } from '../json-value.js';
import { baseName, dirName } from '../path-parts.js';
import type { RunPack } from '../run-pack.js';
import { detectFormatCached, type FoundLog } from '../walk-logs.js';

export type ClaudeAgentFile = { readonly file: string; readonly agentId: string };

/** The files of one Claude Code session. */
export type ClaudeSessionFiles = {
  readonly sessionId: string;
  /** Main transcripts of the session id, by path (usually one). */
  readonly mainFiles: readonly string[];
  readonly agentFiles: readonly ClaudeAgentFile[];
  readonly parentSessionId: string | null;
  /** The encoded-cwd directory the (first) transcript sits in (`-home-me-app`). */
  readonly projectDir: string | null;
};

const AGENT_FILE = /^agent-(.+)\.jsonl$/;

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups detected Claude Code files by session (sorted by id; files by path), whatever order they come in. */
export function groupClaudeFiles(found: readonly FoundLog[]): ClaudeSessionFiles[] {
  const mains = new Map<string, string[]>();
  const agents = new Map<string, { file: string; agentId: string; projectDir: string | null }[]>();
  for (const log of found) {
    const name = baseName(log.path);
    const agent = AGENT_FILE.exec(name);
    if (agent === null) {
      const sessionId = name.slice(0, -'.jsonl'.length);
      const list = mains.get(sessionId) ?? [];
      if (!list.includes(log.path)) list.push(log.path);
      mains.set(sessionId, list);
      continue;
    }
    const agentId = agent[1] ?? name;
    const dir = dirName(log.path);
    const nested = baseName(dir) === 'subagents';
    const named = asString(log.head?.['sessionId']);
    const parent = named !== undefined && named !== '' ? named : nested ? baseName(dirName(dir)) : null;
    const projectDir = nested ? baseName(dirName(dirName(dir))) : baseName(dir);
    const key = parent ?? `agent-${agentId}`;
    const list = agents.get(key) ?? [];
    list.push({ file: log.path, agentId, projectDir });
    agents.set(key, list);
  }
  const sessions: ClaudeSessionFiles[] = [];
  for (const [sessionId, files] of mains) {
    files.sort(byPath);
    const agentFiles = (agents.get(sessionId) ?? [])
      .map(({ file, agentId }) => ({ file, agentId }))
      .sort((a, b) => byPath(a.file, b.file));
    agents.delete(sessionId);
    const first = files[0];
    sessions.push({
      sessionId,
      mainFiles: files,
      agentFiles,
      parentSessionId: null,
      projectDir: first === undefined ? null : baseName(dirName(first)),
    });
  }
  for (const [parent, list] of agents) {
    for (const { file, agentId, projectDir } of list) {
      sessions.push({
        sessionId: `agent-${agentId}`,
        mainFiles: [],
        agentFiles: [{ file, agentId }],
        parentSessionId: parent.startsWith('agent-') ? null : parent,
        projectDir,
      });
    }
  }
  return sessions.sort(
    (a, b) => byPath(a.sessionId, b.sessionId) || byPath(a.agentFiles[0]?.file ?? '', b.agentFiles[0]?.file ?? ''),
  );
}

/**
 * The subagent files of a main transcript given by name: `<dir>/<sessionId>/subagents/agent-*.jsonl`
 * (§1.1). A transcript passed alone still brings its subagents' requests, which are billed.
 */
export async function claudeCompanionFiles(mainPath: string, pack: RunPack | null = null): Promise<FoundLog[]> {
  const name = basename(mainPath);
  if (AGENT_FILE.test(name) || !name.endsWith('.jsonl')) return [];
  const dir = join(dirname(mainPath), name.slice(0, -'.jsonl'.length), 'subagents');
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return []; // no subagents folder: nothing to add
  }
  const found: FoundLog[] = [];
  for (const entry of entries.sort((a, b) => byPath(a.name, b.name))) {
    if (!entry.isFile() || !AGENT_FILE.test(entry.name)) continue;
    const path = join(dir, entry.name);
    const detection = await detectFormatCached(path, pack);
    if (detection !== null && detection.format === 'claude-code') found.push({ ...detection, path });
  }
  return found;
}
