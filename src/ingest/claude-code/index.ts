/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { type LineParser, type ParseCache, readLinesCached } from '../parse-cache.js';
import { type RunPack, stampFiles } from '../run-pack.js';
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
    // The entry itself (it has `line` and `record`): no second object per line of a 1 GB file.
    if (entry.record !== null) records.push(entry as { line: number; record: ClaudeRecord });
    if (entry.problem === null) continue;
    if (entry.repaired) issues.push({ file, line: entry.line, reason: entry.problem, effect: 'repaired' });
    else issues.push({ file, line: entry.line, reason: entry.problem });
  }
  return { file, agentId, records };
}

/**
 * Reads one Claude Code session (its main transcripts and subagent files). With `claims`, responses
 * a session read earlier in the run already counted are not counted again (resumed copies, §1.5).
 * With a run `pack`, a session whose files are unchanged is served from it (not in text mode: it
 * would store the logs' content a second time); a session built here is stored in it.
 */
export async function loadClaudeSession(
  files: ClaudeSessionFiles,
  options: {
    readonly content: ContentMode;
    readonly claims?: ResponseClaims | undefined;
    readonly cache?: ParseCache | null;
    readonly pack?: RunPack | null;
  },
): Promise<Session> {
  const cache = options.cache ?? null;
  const paths = [...files.mainFiles, ...files.agentFiles.map((agent) => agent.file)];
  const pack = options.content === 'text' ? null : (options.pack ?? null);
  // A session read alone (no claims) records none: it is never served to a run that keeps claims.
  const claimsMode = options.claims === undefined ? 'alone' : 'run';
  const sessionKey = `claude-code/session/${options.content}/${claimsMode}/2/${JSON.stringify(files)}`;
  if (pack !== null) {
    const hit = pack.lookup(sessionKey, paths);
    if (hit !== null && pack.serve(hit, options.claims)) return hit.session();
  }
  const stamps = pack === null ? [] : stampFiles(paths);
  const issues: IngestIssue[] = [];
  const read: ClaudeFileRecords[] = [];
  for (const main of files.mainFiles) read.push(await readTranscript(main, null, options.content, cache, issues));
  for (const agent of files.agentFiles)
    read.push(await readTranscript(agent.file, agent.agentId, options.content, cache, issues));
  const build = (claims: RecordingClaims | undefined): Session =>
    buildClaudeSession(
      {
        sessionId: files.sessionId,
        files: read,
        issues,
        parentSessionId: files.parentSessionId,
        projectDir: files.projectDir,
        ...(claims === undefined ? {} : { claims }),
      },
      options,
    );
  const run = options.claims;
  let claims: RecordingClaims | undefined;
  let session: Session;
  if (run !== undefined && pack?.deferring === true) {
    // Sessions served from the pack keep their claims out of the run's map: built against the map
    // alone, the session stands unless one of them holds a response it asked for.
    const probe = new ProbeClaims(run);
    claims = new RecordingClaims(probe, files.sessionId);
    session = build(claims);
    if (pack.deferredHoldsAny(claims.asked, files.sessionId, run)) {
      pack.settle(run);
      claims = new RecordingClaims(run, files.sessionId);
      session = build(claims);
    } else probe.commit();
  } else {
    claims = run === undefined ? undefined : new RecordingClaims(run, files.sessionId);
    session = build(claims);
  }
  // Only a session built without another session's claims is the same in any run that makes the
  // same claims first: one that lost responses to another is rebuilt each time.
  if (pack !== null && (claims === undefined || !claims.lost))
    pack.store(sessionKey, paths, stamps, files.sessionId, session, claims?.asked ?? []);
  return session;
}

/** The run's claims as a build would change them, without changing them until `commit`. */
class ProbeClaims extends Map<string, string> {
  private readonly added = new Map<string, string>();

  constructor(private readonly run: ResponseClaims) {
    super();
  }

  override get(key: string): string | undefined {
    return this.added.get(key) ?? this.run.get(key);
  }

  override set(key: string, value: string): this {
    this.added.set(key, value);
    return this;
  }

  override has(key: string): boolean {
    return this.added.has(key) || this.run.has(key);
  }

  /** Applies the build's claims to the run's. */
  commit(): void {
    for (const [key, value] of this.added) this.run.set(key, value);
  }
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
