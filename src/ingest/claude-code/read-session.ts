/**
 * Reading one Claude Code session's files and building it (`build.ts`), the same way in the main
 * thread (`index.ts`) and on a build worker (`build-jobs.ts`): kept apart from `index.ts` so that
 * a worker loads the reader and the builder, not discovery and the run pack.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import {
  type ClaudeFile,
  type ClaudeFileRecords,
  ClaudeSessionBuild,
  readingGroups,
  readingOrder,
  type ResponseClaims,
} from './build.js';
import type { ClaudeSessionFiles } from './discover.js';
import type { LineEntry } from './line-entry.js';
import type { ParseAhead } from './parse-ahead.js';
import { readEntries } from './read-entries.js';
import type { ClaudeRecord } from './record.js';

/**
 * Reads one transcript, handing each record to `use` in line order and its bad lines to `issues`:
 * from the parse workers when they parsed it ahead, else here (`readEntries`).
 */
async function readTranscript(
  file: string,
  content: ContentMode,
  cache: ParseCache | null,
  ahead: ParseAhead | null,
  issues: IngestIssue[],
  use: (line: number, record: ClaudeRecord) => void,
): Promise<void> {
  const lineIssues: IngestIssue[] = [];
  const take = (entry: LineEntry): void => {
    if (entry.record !== null) use(entry.line, entry.record);
    if (entry.problem === null) return;
    if (entry.repaired) lineIssues.push({ file, line: entry.line, reason: entry.problem, effect: 'repaired' });
    else lineIssues.push({ file, line: entry.line, reason: entry.problem });
  };
  try {
    if (ahead === null || !(await ahead.read(file, take))) await readEntries(file, content, cache, take);
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  for (const issue of lineIssues) issues.push(issue);
}

/** A session's files in the order they were found. */
export function listedFiles(files: ClaudeSessionFiles): ClaudeFile[] {
  return [
    ...files.mainFiles.map((file) => ({ file, agentId: null })),
    ...files.agentFiles.map((agent) => ({ file: agent.file, agentId: agent.agentId })),
  ];
}

/** Reads the session's files and builds it, each file's records built as they are read where its place is known. */
export async function buildSession(
  files: ClaudeSessionFiles,
  content: ContentMode,
  cache: ParseCache | null,
  ahead: ParseAhead | null,
  claims: ResponseClaims | undefined,
): Promise<Session> {
  const build = new ClaudeSessionBuild(
    {
      sessionId: files.sessionId,
      parentSessionId: files.parentSessionId,
      projectDir: files.projectDir,
      ...(claims === undefined ? {} : { claims }),
    },
    files.mainFiles.length,
  );
  // Each file's bad lines, listed in the order the files were found whatever order they are read in.
  const listed = listedFiles(files);
  const fileIssues = new Map<ClaudeFile, IngestIssue[]>(listed.map((file) => [file, []]));
  for (const group of readingGroups(listed)) {
    const only = group.length === 1 ? group[0] : undefined;
    if (only !== undefined) {
      // One file whose place is known: its records are built as they are read, never all held.
      build.beginFile(only);
      await readTranscript(only.file, content, cache, ahead, fileIssues.get(only) ?? [], (line, record) =>
        build.add(line, record),
      );
      build.endFile();
      continue;
    }
    // Files whose order depends on their first timestamps: read, then built in that order.
    const read: ClaudeFileRecords[] = [];
    for (const file of group) {
      const records: { line: number; record: ClaudeRecord }[] = [];
      await readTranscript(file.file, content, cache, ahead, fileIssues.get(file) ?? [], (line, record) =>
        records.push({ line, record }),
      );
      read.push({ file: file.file, agentId: file.agentId, records });
    }
    for (const file of readingOrder(read)) {
      build.beginFile(file);
      for (const { line, record } of file.records) build.add(line, record);
      build.endFile();
    }
  }
  return build.finish([...fileIssues.values()].flat());
}
