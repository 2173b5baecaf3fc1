/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { type LineParser, type ParseCache, readLinesCached } from '../parse-cache.js';
import { buildClaudeSession, type ClaudeFileRecords, type ResponseClaims } from './build.js';
import type { ClaudeSessionFiles } from './discover.js';
import { type ClaudeRecord, parseClaudeLine } from './record.js';

export {
  buildClaudeSession,
  claudeRequestKey,
  CLAUDE_PROVIDER,
  type ClaudeFileRecords,
  type ClaudeSessionInput,
  type ResponseClaims,
  usageReported,
} from './build.js';
export { claudeCompanionFiles, groupClaudeFiles, type ClaudeAgentFile, type ClaudeSessionFiles } from './discover.js';
export { parseClaudeLine, type ClaudeRecord } from './record.js';

/**
 * One line's outcome, as cached: the record (null for blank/invalid/ignored lines) and its problem,
 * `repaired` when the record was read despite it (an invalid line is not read at all).
 */
type LineEntry = {
  readonly line: number;
  readonly record: ClaudeRecord | null;
  readonly problem: string | null;
  readonly repaired: boolean;
};

function lineParser(content: ContentMode): LineParser<LineEntry> {
  return {
    key: `claude-code/${content}/2`,
    parse: (line) => {
      const result = parseClaudeLine(line, content);
      if (result.kind === 'record') {
        const record = result.record.kind === 'ignored' ? null : result.record;
        return record === null && result.problem === null
          ? null
          : { line: line.number, record, problem: result.problem, repaired: true };
      }
      return result.kind === 'invalid'
        ? { line: line.number, record: null, problem: result.reason, repaired: false }
        : null;
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
    await readLinesCached(file, parser, content === 'text' ? null : cache, entries);
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  for (const entry of entries) {
    if (entry.record !== null) records.push({ line: entry.line, record: entry.record });
    if (entry.problem === null) continue;
    if (entry.repaired) issues.push({ file, line: entry.line, reason: entry.problem, effect: 'repaired' });
    else issues.push({ file, line: entry.line, reason: entry.problem });
  }
  return { file, agentId, records };
}

/**
 * Reads one Claude Code session (its main transcripts and subagent files). With `claims`, responses
 * a session read earlier in the run already counted are not counted again (resumed copies, §1.5).
 */
export async function loadClaudeSession(
  files: ClaudeSessionFiles,
  options: {
    readonly content: ContentMode;
    readonly claims?: ResponseClaims | undefined;
    readonly cache?: ParseCache | null;
  },
): Promise<Session> {
  const cache = options.cache ?? null;
  const issues: IngestIssue[] = [];
  const read: ClaudeFileRecords[] = [];
  for (const main of files.mainFiles) read.push(await readTranscript(main, null, options.content, cache, issues));
  for (const agent of files.agentFiles)
    read.push(await readTranscript(agent.file, agent.agentId, options.content, cache, issues));
  return buildClaudeSession(
    {
      sessionId: files.sessionId,
      files: read,
      issues,
      parentSessionId: files.parentSessionId,
      projectDir: files.projectDir,
      ...(options.claims === undefined ? {} : { claims: options.claims }),
    },
    options,
  );
}
