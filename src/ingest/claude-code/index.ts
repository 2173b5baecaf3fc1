/**
 * The Claude Code adapter: group the detected transcripts by session → read each file line by
 * line (streamed) → build. Bad content never throws: it becomes ingest issues on the session.
 */
import { statSync } from 'node:fs';
import type { Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { hasCacheEntry, type ParseCache } from '../parse-cache.js';
import { type RunPack, stampFiles } from '../run-pack.js';
import { BuildAhead, type BuildWorkers, type BuiltAhead, type PlannedSession } from './build-ahead.js';
import { readingGroups, type ResponseClaims } from './build.js';
import type { ClaudeSessionFiles } from './discover.js';
import { lineParser } from './line-entry.js';
import { ParseAhead, type ParallelParse, type PlannedRead } from './parse-ahead.js';
import { buildSession, listedFiles } from './read-session.js';

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
export { parseClaudeLine, parseClaudeRawLine, type ClaudeRecord } from './record.js';
export { defaultParseWorkerScript, ParseAhead, type ParallelParse } from './parse-ahead.js';
export { BuildAhead, BuildWorkers } from './build-ahead.js';
export type { WorkerScript } from '../worker-script.js';

/**
 * Reads one Claude Code session (its main transcripts and subagent files). With `claims`, responses
 * a session read earlier in the run already counted are not counted again (resumed copies, §1.5).
 * With a run `pack`, a session whose files are unchanged is served from it (not in text mode: it
 * would store the logs' content a second time); a session built here is stored in it.
 */
export async function loadClaudeSession(files: ClaudeSessionFiles, options: ClaudeLoadOptions): Promise<Session> {
  return loadClaudeSessionNow(files, options);
}

export type ClaudeLoadOptions = {
  readonly content: ContentMode;
  readonly claims?: ResponseClaims | undefined;
  readonly cache?: ParseCache | null;
  readonly pack?: RunPack | null;
  /** Transcripts parsed ahead on worker threads (`startClaudeParseAhead`). */
  readonly ahead?: ParseAhead | null;
  /** Sessions built ahead on worker threads (`startClaudeBuildAhead`). */
  readonly builds?: BuildAhead | null;
};

/**
 * `loadClaudeSession`, returning the session itself, without a promise, when the run pack serves
 * it: a re-run serves hundreds of sessions, and an async call and its awaits per session cost
 * more than serving it. A session to be built comes as a promise.
 */
export function loadClaudeSessionNow(
  files: ClaudeSessionFiles,
  options: ClaudeLoadOptions,
): Session | Promise<Session> {
  const paths = [...files.mainFiles, ...files.agentFiles.map((agent) => agent.file)];
  const pack = options.content === 'text' ? null : (options.pack ?? null);
  // A session read alone (no claims) records none: it is never served to a run that keeps claims.
  const sessionKey = packKey(files, options.content, options.claims !== undefined);
  if (pack !== null) {
    const hit = pack.lookup(sessionKey, paths);
    if (hit !== null && pack.serve(hit, options.claims)) return hit.session();
  }
  return buildClaudeSessionNow(files, options, paths, pack, sessionKey);
}

/** The rest of `loadClaudeSessionNow`: a session the run pack did not serve, built (and stored in the pack). */
async function buildClaudeSessionNow(
  files: ClaudeSessionFiles,
  options: ClaudeLoadOptions,
  paths: readonly string[],
  pack: RunPack | null,
  sessionKey: string,
): Promise<Session> {
  const ahead = options.ahead ?? null;
  const cache = options.cache ?? null;
  const run = options.claims;
  const built = (await options.builds?.take(files)) ?? null;
  if (built !== null && keepBuiltAlone(built, files.sessionId, run, pack)) {
    if (pack !== null)
      pack.store(
        sessionKey,
        paths,
        built.stamps,
        files.sessionId,
        built.session,
        run ? built.asked : [],
        built.encoded,
      );
    return built.session;
  }
  const stamps = pack === null ? [] : stampFiles(paths);
  let claims: RecordingClaims | undefined;
  let session: Session;
  if (run !== undefined && pack?.deferring === true) {
    // Sessions served from the pack keep their claims out of the run's map: built against the map
    // alone, the session stands unless one of them holds a response it asked for.
    const probe = new ProbeClaims(run);
    claims = new RecordingClaims(probe, files.sessionId);
    session = await buildSession(files, options.content, cache, ahead, claims);
    if (pack.deferredHoldsAny(claims.asked, files.sessionId, run)) {
      pack.settle(run);
      claims = new RecordingClaims(run, files.sessionId);
      // Read again (records are built as they are read): the line entries just written serve them.
      session = await buildSession(files, options.content, cache, ahead, claims);
    } else probe.commit();
  } else if (pack === null) {
    // Nothing is stored: what the build asked for and whether it lost a response are not needed.
    session = await buildSession(files, options.content, cache, ahead, run);
  } else {
    claims = run === undefined ? undefined : new RecordingClaims(run, files.sessionId);
    session = await buildSession(files, options.content, cache, ahead, claims);
  }
  // Only a session built without another session's claims is the same in any run that makes the
  // same claims first: one that lost responses to another is rebuilt each time.
  if (pack !== null && (claims === undefined || !claims.lost))
    pack.store(sessionKey, paths, stamps, files.sessionId, session, claims?.asked ?? []);
  return session;
}

/**
 * Whether a session built alone (`build-ahead.ts`) is the one this run builds, and if so makes its
 * claims in the run's map: when no session before it holds a response it asked for (then each
 * claim it made alone, it makes in the run). With sessions served from the pack whose claims are
 * deferred, it is built again here, as in one thread.
 */
function keepBuiltAlone(
  built: BuiltAhead,
  sessionId: string,
  run: ResponseClaims | undefined,
  pack: RunPack | null,
): boolean {
  if (run === undefined) return true;
  if (pack?.deferring === true) return false;
  for (const key of built.asked) {
    const holder = run.get(key);
    if (holder !== undefined && holder !== sessionId) return false;
  }
  // Each key is unclaimed or already this session's: setting it changes neither value nor order.
  for (const key of built.asked) run.set(key, sessionId);
  return true;
}

/** The run pack's key of a session (a session read alone, without claims, records none: never served to a run that keeps claims). */
function packKey(files: ClaudeSessionFiles, content: ContentMode, withClaims: boolean): string {
  const known = packKeys.get(files);
  if (known !== undefined && known.content === content && known.withClaims === withClaims) return known.key;
  const key = `claude-code/session/${content}/${withClaims ? 'run' : 'alone'}/2/${JSON.stringify(files)}`;
  packKeys.set(files, { content, withClaims, key });
  return key;
}

/**
 * A session's key, once per discovered session (a planned run keys each session twice): the same
 * string each time, whose hash the pack's maps then take once.
 */
const packKeys = new WeakMap<
  ClaudeSessionFiles,
  { readonly content: ContentMode; readonly withClaims: boolean; readonly key: string }
>();

/**
 * Starts parsing ahead, on worker threads, the transcripts of `sessions` that a run loading them in
 * this order will parse: not those of a session the run pack holds as it is, nor those the parse
 * cache has an entry for (a re-run reads the entry, or only what a file appended). Null when
 * there are too few bytes to parse for workers to pay (`ParseAhead.start`), and in text mode.
 */
export function startClaudeParseAhead(
  sessions: readonly ClaudeSessionFiles[],
  options: {
    readonly content: ContentMode;
    readonly withClaims: boolean;
    readonly cache: ParseCache | null;
    readonly pack: RunPack | null;
    readonly parallel: ParallelParse;
  },
): ParseAhead | null {
  const { content, cache, pack } = options;
  // Text mode keeps the logs' content: moving it between threads would cost what parsing saves.
  if (content === 'text' || options.parallel.workers < 1) return null;
  const parser = lineParser(content);
  const plan: PlannedRead[] = [];
  for (const files of sessions) {
    const listed = listedFiles(files);
    const served =
      pack?.lookup(
        packKey(files, content, options.withClaims),
        listed.map((file) => file.file),
      ) ?? null;
    if (served !== null) continue;
    for (const group of readingGroups(listed))
      for (const { file } of group) {
        if (cache !== null && hasCacheEntry(cache, parser.key, file)) continue;
        let bytes = 0;
        try {
          bytes = statSync(file).size;
        } catch {
          // Unreadable: reading it reports why.
        }
        plan.push({ file, bytes });
      }
  }
  return ParseAhead.start(plan, content, cache, options.parallel);
}

/**
 * Starts building ahead, on worker threads, the sessions of `sessions` that a run loading them in
 * this order (with claims) will build: not those the run pack holds as they are. Null when there
 * are too few bytes to read for workers to pay (`BuildAhead.start`), and in text mode.
 */
export function startClaudeBuildAhead(
  sessions: readonly ClaudeSessionFiles[],
  options: {
    readonly content: ContentMode;
    readonly cache: ParseCache | null;
    readonly pack: RunPack | null;
    readonly parallel: ParallelParse;
    /** Workers started while the run discovered its sessions (`BuildWorkers`): taken, or stopped. */
    readonly warm?: BuildWorkers | null;
  },
): BuildAhead | null {
  const { content, cache, pack } = options;
  const warm = options.warm ?? null;
  // Text mode keeps the logs' content: moving it between threads would cost what building saves.
  if (content === 'text' || options.parallel.workers < 1) {
    warm?.stop();
    return null;
  }
  const parser = lineParser(content);
  const plan: PlannedSession[] = [];
  for (const files of sessions) {
    const paths = listedFiles(files).map((file) => file.file);
    if ((pack?.lookup(packKey(files, content, true), paths) ?? null) !== null) continue;
    // Every file has a parse cache entry (a session the pack does not keep, re-read each run): the
    // run reads the entries, or only what a file appended; a worker would not pay.
    if (cache !== null && paths.every((path) => hasCacheEntry(cache, parser.key, path))) continue;
    // Stamped before any of them is read: a file that changes while it is read is not stored as read.
    const stamps = pack === null ? [] : stampFiles(paths);
    let bytes = 0;
    for (const [i, path] of paths.entries()) {
      const stamp = stamps[i];
      if (stamp !== undefined) bytes += stamp?.[2] ?? 0;
      else
        try {
          bytes += statSync(path).size;
        } catch {
          // Unreadable: building it reports why.
        }
    }
    plan.push({ files, bytes, stamps });
  }
  return BuildAhead.start(plan, content, cache, options.parallel, warm);
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
