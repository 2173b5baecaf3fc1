/**
 * The Codex adapter: one rollout per session → read line by line (`readLinesSync`, chunk by chunk)
 * → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { readLinesSync } from '../lines.js';
import { buildCodexSession } from './build.js';
import type { CodexSessionFiles } from './discover.js';
import { type CodexRecord, parseCodexLine } from './record.js';

export { buildCodexSession, type CodexSessionInput, forkReplay, REPLAY_GAP_MS } from './build.js';
export { groupCodexFiles, type CodexSessionFiles, type CodexSubagentFile } from './discover.js';
export { parseCodexLine, type CodexRecord } from './record.js';

function readRollout(
  file: string,
  content: ContentMode,
  issues: IngestIssue[],
): { line: number; record: CodexRecord }[] {
  const records: { line: number; record: CodexRecord }[] = [];
  try {
    for (const line of readLinesSync(file)) {
      const result = parseCodexLine(line, content);
      if (result.kind === 'record') {
        if (result.record.kind !== 'ignored') records.push({ line: line.number, record: result.record });
      } else if (result.kind === 'invalid') {
        issues.push({ file, line: line.number, reason: result.reason });
      }
    }
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  return records;
}

/** Reads one Codex rollout (and its sub-agents' rollouts) into a session. */
export async function loadCodexSession(
  files: CodexSessionFiles,
  options: { readonly content: ContentMode },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  const records = readRollout(files.file, options.content, issues);
  const subagents = [];
  for (const child of files.subagents ?? []) {
    const childRecords = readRollout(child.file, options.content, issues);
    subagents.push({ file: child.file, agentId: child.agentId, records: childRecords });
  }
  return buildCodexSession({ sessionId: files.sessionId, file: files.file, records, issues, subagents });
}
