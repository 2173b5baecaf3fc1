/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import {
  type LineParser,
  type ParseCache,
  lineEntryPath,
  forEachLineEntry,
  readLinesCached,
  readValueCached,
  stampFiles,
  writeValueCached,
} from '../parse-cache.js';
import {
  type ClaudeFile,
  type ClaudeFileRecords,
  ClaudeSessionBuild,
  readingGroups,
  readingOrder,
  type ResponseClaims,
} from './build.js';
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

/**
 * Reads one transcript, handing each record to `use` in line order and its bad lines to `issues`.
 * Without a cache (and in text mode, never cached) records are consumed as each line is parsed.
 */
async function readTranscript(
  file: string,
  content: ContentMode,
  cache: ParseCache | null,
  issues: IngestIssue[],
  use: (line: number, record: ClaudeRecord) => void,
): Promise<void> {
  // Only character counts are cached: text mode would store the logs' content a second time.
  const parser = lineParser(content);
  const lineIssues: IngestIssue[] = [];
  const take = (entry: LineEntry): void => {
    if (entry.record !== null) use(entry.line, entry.record);
    if (entry.problem === null) return;
    if (entry.repaired) lineIssues.push({ file, line: entry.line, reason: entry.problem, effect: 'repaired' });
    else lineIssues.push({ file, line: entry.line, reason: entry.problem });
  };
  try {
    if (content === 'text' || cache === null) await forEachLineEntry(file, parser, take);
    else {
      const entries: LineEntry[] = [];
      try {
        await readLinesCached(file, parser, cache, entries);
      } finally {
        for (const entry of entries) take(entry);
      }
    }
  } catch (error) {
    issues.push({ file, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
  for (const issue of lineIssues) issues.push(issue);
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
  const paths = [...files.mainFiles, ...files.agentFiles.map((agent) => agent.file)];
  // The whole session is cached too (not in text mode): a re-run over unchanged logs reads one
  // entry per session instead of every line's record and building it again.
  const sessionKey = `claude-code/session/${options.content}/1/${JSON.stringify(files)}`;
  const useSessionCache = cache !== null && options.content !== 'text';
  const lineKey = lineParser(options.content).key;
  const derived = cache === null ? [] : paths.map((path) => lineEntryPath(cache, lineKey, path));
  if (useSessionCache) {
    const hit = readValueCached<CachedSession>(cache, sessionKey, paths, derived);
    if (hit !== null && claimAll(hit.claimed, files.sessionId, options.claims)) return hit.session;
  }
  const stamps = useSessionCache ? stampFiles(paths) : [];
  const claims = options.claims === undefined ? undefined : new RecordingClaims(options.claims, files.sessionId);
  const build = new ClaudeSessionBuild({
    sessionId: files.sessionId,
    parentSessionId: files.parentSessionId,
    projectDir: files.projectDir,
    ...(claims === undefined ? {} : { claims }),
  });
  // Each file's bad lines, listed in the order the files were found whatever order they are read in.
  const listed: ClaudeFile[] = [
    ...files.mainFiles.map((file) => ({ file, agentId: null })),
    ...files.agentFiles.map((agent) => ({ file: agent.file, agentId: agent.agentId })),
  ];
  const fileIssues = new Map<ClaudeFile, IngestIssue[]>(listed.map((file) => [file, []]));
  for (const group of readingGroups(listed)) {
    const only = group.length === 1 ? group[0] : undefined;
    if (only !== undefined) {
      // One file whose place is known: its records are built as they are read, never all held.
      build.beginFile(only);
      await readTranscript(only.file, options.content, cache, fileIssues.get(only) ?? [], (line, record) =>
        build.add(line, record),
      );
      build.endFile();
      continue;
    }
    // Files whose order depends on their first timestamps: read, then built in that order.
    const read: ClaudeFileRecords[] = [];
    for (const file of group) {
      const records: { line: number; record: ClaudeRecord }[] = [];
      await readTranscript(file.file, options.content, cache, fileIssues.get(file) ?? [], (line, record) =>
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
  const session = build.finish([...fileIssues.values()].flat());
  // Only a session built without another session's claims is the same in any run that makes the
  // same claims first: one that lost responses to another is rebuilt each time.
  if (useSessionCache && (claims === undefined || !claims.lost)) {
    const entry: CachedSession = { session, claimed: claims?.asked ?? [] };
    await writeValueCached(cache, sessionKey, paths, stamps, derived, entry);
  }
  return session;
}

/** A built session and the response keys it claimed (in order), as cached. */
type CachedSession = { readonly session: Session; readonly claimed: readonly string[] };

/**
 * Claims a cached session's responses for it, as building it would: only when no other session
 * of the run holds any of them (then the build would be the same); false leaves the claims as
 * they were, and the session is built from its records.
 */
function claimAll(keys: readonly string[], sessionId: string, claims: ResponseClaims | undefined): boolean {
  if (claims === undefined) return true;
  for (const key of keys) {
    const holder = claims.get(key);
    if (holder !== undefined && holder !== sessionId) return false;
  }
  for (const key of keys) if (!claims.has(key)) claims.set(key, sessionId);
  return true;
}

/** The run's claims, recording which keys a session asked for and whether another session held one. */
class RecordingClaims extends Map<string, string> {
  readonly asked: string[] = [];
  lost = false;

  constructor(
    private readonly run: ResponseClaims,
    private readonly sessionId: string,
  ) {
    super();
  }

  override get(key: string): string | undefined {
    const holder = this.run.get(key);
    this.asked.push(key);
    if (holder !== undefined && holder !== this.sessionId) this.lost = true;
    return holder;
  }

  override set(key: string, value: string): this {
    this.run.set(key, value);
    return this;
  }

  override has(key: string): boolean {
    return this.run.has(key);
  }
}
