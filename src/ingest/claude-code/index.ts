/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { type LineParser, type ParseCache, readLinesCached } from '../parse-cache.js';
import { buildClaudeSession, type ClaudeFileRecords } from './build.js';
import type { ClaudeSessionFiles } from './discover.js';
import { type ClaudeRecord, parseClaudeLine } from './record.js';

export { buildClaudeSession, claudeRequestKey, CLAUDE_PROVIDER, type ClaudeFileRecords, type ClaudeSessionInput } from './build.js';
export { groupClaudeFiles, type ClaudeAgentFile, type ClaudeSessionFiles } from './discover.js';
export { parseClaudeLine, type ClaudeRecord } from './record.js';

/** One line's outcome, as cached: the record (null for blank/invalid/ignored lines) and its problem. */
type LineEntry = { readonly line: number; readonly record: ClaudeRecord | null; readonly problem: string | null };

function lineParser(content: ContentMode): LineParser<LineEntry> {
  return {
    key: `claude-code/${content}/1`,
    parse: (line) => {
      const result = parseClaudeLine(line, content);
      if (result.kind === 'record') {
        const record = result.record.kind === 'ignored' ? null : result.record;
        return record === null && result.problem === null ? null : { line: line.number, record, problem: result.problem };
      }
      return result.kind === 'invalid' ? { line: line.number, record: null, problem: result.reason } : null;
    },
  };
}

async function readTranscript(
  file: string,
  agentId: string | null,
  content: ContentMode,
  cache: ParseCache | null,
  issues: IngestIssue[],
): Promise<ClaudeFileRecords> {
  const records: { line: number; record: ClaudeRecord }[] = [];
  // Only character counts are cached: text mode would store the logs' content a second time.
  const parser = lineParser(content);
  const entries: LineEntry[] = [];
  try {
    await readLinesCached(file, parser, content === 'sizes' ? cache : null, entries);
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${error instanceof Error ? error.message : String(error)}` });
  }
  for (const entry of entries) {
    if (entry.record !== null) records.push({ line: entry.line, record: entry.record });
    if (entry.problem !== null) issues.push({ file, line: entry.line, reason: entry.problem });
  }
  return { file, agentId, records };
}

/** Reads one Claude Code session (main transcript, then its subagent files). */
export async function loadClaudeSession(
  files: ClaudeSessionFiles,
  options: { readonly content: ContentMode; readonly cache?: ParseCache | null },
): Promise<Session> {
  const cache = options.cache ?? null;
  const issues: IngestIssue[] = [];
  const read: ClaudeFileRecords[] = [];
  if (files.mainFile !== null) read.push(await readTranscript(files.mainFile, null, options.content, cache, issues));
  for (const agent of files.agentFiles) read.push(await readTranscript(agent.file, agent.agentId, options.content, cache, issues));
  return buildClaudeSession(
    { sessionId: files.sessionId, files: read, issues, parentSessionId: files.parentSessionId, projectDir: files.projectDir },
    options,
  );
}
