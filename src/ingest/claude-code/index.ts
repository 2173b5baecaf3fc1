/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { readLines } from '../lines.js';
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

async function readTranscript(file: string, agentId: string | null, content: ContentMode, issues: IngestIssue[]): Promise<ClaudeFileRecords> {
  const records: { line: number; record: ClaudeRecord }[] = [];
  try {
    for await (const line of readLines(file)) {
      const result = parseClaudeLine(line, content);
      if (result.kind === 'record') {
        if (result.record.kind !== 'ignored') records.push({ line: line.number, record: result.record });
        if (result.problem !== null) {
          issues.push({ file, line: line.number, reason: result.problem, effect: 'repaired' });
        }
      } else if (result.kind === 'invalid') {
        issues.push({ file, line: line.number, reason: result.reason });
      }
    }
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  return { file, agentId, records };
}

/**
 * Reads one Claude Code session (its main transcripts and subagent files). With `claims`, responses
 * a session read earlier in the run already counted are not counted again (resumed copies, §1.5).
 */
export async function loadClaudeSession(
  files: ClaudeSessionFiles,
  options: { readonly content: ContentMode; readonly claims?: ResponseClaims | undefined },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  const read: ClaudeFileRecords[] = [];
  for (const main of files.mainFiles) read.push(await readTranscript(main, null, options.content, issues));
  for (const agent of files.agentFiles) read.push(await readTranscript(agent.file, agent.agentId, options.content, issues));
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
