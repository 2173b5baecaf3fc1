/**
 * Claude Code records → one normalized session (pure). The main transcript gives the items and the
 * main-agent requests in file order; inline sidechains (1.0.x) and subagent files (2.x) give
 * requests attributed through `agentId`, never items (formats.md §1.6). One request per response:
 * lines are grouped by (message.id, requestId), falling back to message.id, across EVERY file of
 * the session (§1.5, §6 item 1). A group's usage is its line with the largest output, wherever that
 * line is (§1.4: earlier lines hold placeholders; the final line may exist only in an acompact or
 * aside_question copy); the group is counted once, in the first file that holds it. A response
 * whose usage is all zero reports no usage (an unfinished stream, or an endpoint that logs none):
 * it is a request with `usage: null`, named by a note, never a request of 0 tokens.
 *
 * The build consumes records as they are read (`ClaudeSessionBuild`): a 1 GB transcript's records
 * are never all held at once. A response's usage can come from a later line or file (§1.4), so each
 * request's usage, and the "reports no usage" note, are settled when the last file has been read.
 */
import type { HarnessEvent, IngestIssue, Item, MeasuredUsage, Request, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { AssistantRecord, ClaudeRecord, UserRecord } from './record.js';

export type ClaudeFileRecords = {
  readonly file: string;
  /** Subagent id from the file name (`agent-<id>.jsonl`); null for a main transcript. */
  readonly agentId: string | null;
  readonly records: readonly { readonly line: number; readonly record: ClaudeRecord }[];
};

/**
 * Responses already counted by a session loaded earlier, shared across the sessions of one run:
 * a resumed session can copy another's history with its request ids (§1.5); the first session to
 * claim a response counts it (ccusage's rule).
 */
export type ResponseClaims = Map<string, string>;

export type ClaudeSessionInput = {
  readonly sessionId: string;
  /** Main transcripts (a session id may have several: two project folders, a copy) and subagent files, any order. */
  readonly files: readonly ClaudeFileRecords[];
  readonly issues: readonly IngestIssue[];
  /** Session this one belongs to when only a subagent file was found (no main transcript). */
  readonly parentSessionId: string | null;
  readonly projectDir: string | null;
  readonly claims?: ResponseClaims;
};

export const CLAUDE_PROVIDER = 'anthropic';

type MutableRequest = { -readonly [K in keyof Request]: Request[K] };

/** The request key of formats.md §1.4 rule: (message.id, requestId), else message.id; null when neither id exists. */
export function claudeRequestKey(record: Pick<AssistantRecord, 'messageId' | 'requestId'>): string | null {
  if (record.messageId === null) return null;
  return record.requestId === null ? record.messageId : `${record.messageId}:${record.requestId}`;
}

/** True when a usage reports anything: an all-zero usage is "not reported", not a measurement of 0. */
export function usageReported(usage: MeasuredUsage | null): usage is MeasuredUsage {
  return usage !== null && (usage.promptTokens > 0 || usage.outputTokens > 0);
}

/**
 * Which of two lines of one response gives its usage: a reported usage over none, then the larger
 * output (§1.4), then the larger prompt; on a tie the line seen first stays. The choice depends on
 * the lines only, never on the order files are read in.
 */
function betterUsage(candidate: MeasuredUsage | null, current: MeasuredUsage | null): boolean {
  if (!usageReported(candidate)) return false;
  if (!usageReported(current)) return true;
  if (candidate.outputTokens !== current.outputTokens) return candidate.outputTokens > current.outputTokens;
  return candidate.promptTokens > current.promptTokens;
}

/**
 * One response of the session (one request key): the file that counts it, and its usage, the best
 * line over all files whatever their order (§1.4, §1.5). One map entry per response holds all three,
 * so that a line costs one lookup (a large transcript has tens of thousands of responses, each
 * written as several lines).
 */
type ResponseState = {
  /** The file whose line created the request (a line of another file is a replayed copy); undefined until one does. */
  owner: string | undefined;
  usage: MeasuredUsage | null;
  /** A line of the response had invalid counts: no usage we can trust, never an earlier partial line's. */
  invalid: boolean;
  /** The most web searches a line of the response reports (`AssistantRecord.webSearches`). */
  webSearches: number;
};

/** Every response of the session by request key (`claudeRequestKey`, else `<file>:<line>`). */
class Responses {
  private readonly byKey = new Map<string, ResponseState>();

  /** An assistant line's response, its usage weighed (`betterUsage`); null for an API error line, which is no response. */
  add(record: AssistantRecord, key: string): ResponseState | null {
    if (record.apiError !== null) return null;
    const current = this.byKey.get(key);
    if (current === undefined) {
      const state: ResponseState = {
        owner: undefined,
        usage: record.usage,
        invalid: record.usageInvalid,
        webSearches: record.webSearches,
      };
      this.byKey.set(key, state);
      return state;
    }
    if (record.usageInvalid) current.invalid = true;
    if (record.webSearches > current.webSearches) current.webSearches = record.webSearches;
    if (betterUsage(record.usage, current.usage)) current.usage = record.usage;
    return current;
  }
}

/** Responses of one file that another session already counted: first line, how many, by which sessions. */
type ClaimedElsewhere = { readonly line: number; count: number; readonly sessions: Set<string> };

class Builder {
  readonly items: Item[] = [];
  readonly requests: MutableRequest[] = [];
  readonly events: HarnessEvent[] = [];
  readonly issues: IngestIssue[] = [];
  /** Keys another session counted, per file of this one: reported once per file. */
  readonly claimedElsewhere = new Map<string, ClaimedElsewhere>();
  private readonly toolNames = new Map<string, string>();
  /** Inline sidechain uuid → the uuid of its sidechain's root (the agent's identity in 1.0.x). */
  private readonly sidechainRoot = new Map<string, string>();
  /**
   * The `parentUuid` tree of the main transcript (§1.6): record uuid → the id of the newest item at
   * or above it, null for a root above any item. Items carry their parent's id (`Item.parentId`) so
   * the replay follows the chain each request sent, not the file order (rewinds, compactions).
   */
  private readonly chainTip = new Map<string, string | null>();
  /** The parent of the next item of the record being read; undefined when not known. */
  private nextParent: string | null | undefined = undefined;
  /** A `compact_boundary` waiting for its summary record. */
  private pendingBoundary: number | null = null;
  title: string | null = null;
  private leafTitle: string | null = null;
  readonly uuids = new Set<string>();
  private readonly summaries: { readonly leafUuid: string | null; readonly title: string }[] = [];
  project: string | null = null;

  /** Line, ids and response of each request, in request order: its usage and any note are settled at the end (`settle`). */
  private readonly requestLines: number[] = [];
  private readonly requestIds: (string | null)[] = [];
  private readonly requestResponses: ResponseState[] = [];
  private readonly responses = new Responses();

  constructor(
    private readonly sessionId: string,
    private readonly claims: ResponseClaims | undefined,
    /** At most one main transcript: none of its records can repeat another's, no uuid is tracked (`isMainCopy`). */
    private readonly singleMain: boolean,
  ) {}

  /** Starts reading a main-chain record: its first item follows the item its `parentUuid` leads to. */
  private enterChain(parentUuid: string | null): void {
    this.nextParent = parentUuid === null ? null : this.chainTip.get(parentUuid);
  }

  /** Ends a main-chain record: records naming it as parent follow its last item (or its own parent). */
  private leaveChain(uuid: string | null): void {
    if (uuid !== null && this.nextParent !== undefined) this.chainTip.set(uuid, this.nextParent);
    this.nextParent = undefined;
  }

  /** Appends a main-transcript item with its place in the chain; the record's next item follows it. */
  private pushItem(item: Item): void {
    // Set on the caller's fresh literal, not spread into a copy: a spread copy got a hidden class
    // of its own per item (a tenth of a loaded session's heap), all lookups then megamorphic.
    if (this.nextParent !== undefined) (item as { parentId?: string | null }).parentId = this.nextParent;
    this.items.push(item);
    this.nextParent = item.id;
  }

  agentOf(record: AssistantRecord | UserRecord, fileAgentId: string | null): string | null {
    if (fileAgentId !== null) return record.agentId ?? fileAgentId;
    if (!record.sidechain) return null;
    if (record.agentId !== null) return record.agentId;
    const root =
      (record.parentUuid !== null ? this.sidechainRoot.get(record.parentUuid) : undefined) ??
      record.uuid ??
      'sidechain';
    if (record.uuid !== null) this.sidechainRoot.set(record.uuid, root);
    return `sidechain:${root}`;
  }

  /** False when another session already counted this response (a resumed copy, §1.5); claims it otherwise. */
  private claim(key: string, file: string, line: number): boolean {
    if (this.claims === undefined) return true;
    const holder = this.claims.get(key);
    if (holder === undefined) {
      this.claims.set(key, this.sessionId);
      return true;
    }
    if (holder === this.sessionId) return true;
    const seen = this.claimedElsewhere.get(file);
    if (seen === undefined) this.claimedElsewhere.set(file, { line, count: 1, sessions: new Set([holder]) });
    else {
      seen.count += 1;
      seen.sessions.add(holder);
    }
    return false;
  }

  /**
   * `ids`: the record's `claudeRequestKey`; `response`: its response as `Responses.add` weighed the
   * line (null for an API error line); both computed once per line by `record`.
   */
  private assistant(
    record: AssistantRecord,
    ids: string | null,
    response: ResponseState | null,
    file: string,
    line: number,
    agentId: string | null,
  ): void {
    if (response === null) {
      if (agentId === null) {
        this.events.push({
          kind: 'model_error',
          itemIndex: this.items.length,
          requestIndex: this.requests.length,
          timestampMs: record.timestampMs,
          errorKind: 'api_error',
          message: record.apiError ?? '',
        });
      }
      return;
    }
    const owner = response.owner;
    if (owner !== undefined && owner !== file) return; // a replayed copy (§1.5): its usage is weighed in `responses`
    if (owner === undefined) {
      response.owner = file;
      if (ids === null || this.claim(ids, file, line)) {
        this.requestLines.push(line);
        this.requestIds.push(ids);
        this.requestResponses.push(response);
        this.requests.push({
          index: this.requests.length,
          itemIndex: this.items.length,
          model: record.model,
          provider: CLAUDE_PROVIDER,
          timestampMs: record.timestampMs,
          usage: null, // settled when every file has been read: a later line may hold the response's usage
          agentId,
        });
      }
    }
    for (const call of record.toolCalls) this.toolNames.set(call.callId, call.name);
    if (agentId !== null) return;
    let chars = record.textChars;
    for (const call of record.toolCalls) chars += call.name.length + call.argsJson.length;
    if (chars === 0 && record.thinkingChars === 0) return;
    this.pushItem({
      kind: 'assistant',
      id: record.uuid ?? `${file}:${line}`,
      timestampMs: record.timestampMs,
      text: record.text,
      chars,
      imageParts: 0,
      imageChars: 0,
      responseId: ids,
      toolCalls: [...record.toolCalls],
      thinkingChars: record.thinkingChars,
    });
  }

  user(record: UserRecord, file: string, line: number): void {
    const id = record.uuid ?? `${file}:${line}`;
    if (record.isCompactSummary) {
      const itemIndex = this.items.length;
      this.pushItem({
        kind: 'summary',
        id,
        timestampMs: record.timestampMs,
        text: record.content.text,
        chars: record.content.chars,
        imageParts: 0,
        imageChars: 0,
      });
      const pending = this.pendingBoundary === null ? undefined : this.events[this.pendingBoundary];
      if (pending !== undefined && pending.kind === 'compaction') {
        this.events[this.pendingBoundary ?? 0] = { ...pending, summaryItemId: id };
      } else {
        // Legacy compaction (1.0.x): no boundary record, only the summary (§1.7).
        this.events.push({
          kind: 'compaction',
          itemIndex,
          requestIndex: this.requests.length,
          timestampMs: record.timestampMs,
          trigger: 'unknown',
          tokensBefore: null,
          tokensAfter: null,
          tokenUnit: 'provider',
          summaryItemId: id,
        });
      }
      this.pendingBoundary = null;
      return;
    }
    this.pendingBoundary = null;
    for (const [i, result] of record.toolResults.entries()) {
      this.pushItem({
        kind: 'tool_result',
        id: `${id}:${i}`,
        timestampMs: record.timestampMs,
        text: result.text,
        chars: result.chars,
        imageParts: result.imageParts,
        imageChars: result.imageChars,
        callId: result.callId === '' ? `${id}:${i}` : result.callId,
        toolName: this.toolNames.get(result.callId) ?? '',
        failed: result.failed,
      });
    }
    if (record.hasText || record.toolResults.length === 0) {
      this.pushItem({
        kind: 'user',
        id,
        timestampMs: record.timestampMs,
        text: record.content.text,
        chars: record.content.chars,
        imageParts: record.content.imageParts,
        imageChars: record.content.imageChars,
        synthetic: record.isMeta ? 'meta' : null,
      });
    }
  }

  /** Main-transcript uuid → the file holding it first: a second main file of a session repeats what the first has. */
  private readonly mainUuids = new Map<string, string>();

  /** True for a record of a main transcript already read from another main transcript of the session. */
  private isMainCopy(record: { readonly uuid: string | null }, input: ClaudeFile): boolean {
    if (this.singleMain || input.agentId !== null || record.uuid === null) return false;
    const holder = this.mainUuids.get(record.uuid);
    if (holder === undefined) {
      this.mainUuids.set(record.uuid, input.file);
      return false;
    }
    return holder !== input.file;
  }

  /** `ids`: an assistant record's `claudeRequestKey` (null for any other record). */
  record(
    record: ClaudeRecord,
    ids: string | null,
    input: ClaudeFile,
    line: number,
    unknownTypes: Map<string, { line: number; count: number }>,
  ): void {
    const kind = record.kind;
    // Every line of a response weighs its usage, a main copy's too (§1.4, §1.5).
    const response = kind === 'assistant' ? this.responses.add(record, ids ?? `${input.file}:${line}`) : null;
    const placed = kind === 'assistant' || kind === 'user' || kind === 'compact_boundary' || kind === 'api_error';
    if (placed && this.isMainCopy(record, input)) return;
    switch (record.kind) {
      case 'assistant':
      case 'user': {
        if (record.uuid !== null) this.uuids.add(record.uuid);
        if (this.project === null && record.cwd !== null) this.project = record.cwd;
        const agentId = this.agentOf(record, input.agentId);
        if (agentId === null) this.enterChain(record.parentUuid);
        if (record.kind === 'assistant') this.assistant(record, ids, response, input.file, line, agentId);
        else if (agentId === null) this.user(record, input.file, line);
        if (agentId === null) this.leaveChain(record.uuid);
        return;
      }
      case 'compact_boundary':
        if (input.agentId !== null || record.sidechain) return;
        this.enterChain(record.parentUuid);
        this.leaveChain(record.uuid);
        this.pendingBoundary = this.events.length;
        this.events.push({
          kind: 'compaction',
          itemIndex: this.items.length,
          requestIndex: this.requests.length,
          timestampMs: record.timestampMs,
          trigger: record.trigger,
          tokensBefore: record.preTokens,
          tokensAfter: record.postTokens,
          tokenUnit: 'provider',
          summaryItemId: null,
        });
        return;
      case 'api_error':
        if (input.agentId !== null || record.sidechain) return;
        this.enterChain(record.parentUuid);
        this.leaveChain(record.uuid);
        this.events.push({
          kind: 'model_error',
          itemIndex: this.items.length,
          requestIndex: this.requests.length,
          timestampMs: record.timestampMs,
          errorKind: 'api_error',
          message: record.message,
        });
        return;
      case 'title':
        if (record.fromSummary) this.summaries.push({ leafUuid: record.leafUuid, title: record.title });
        else this.leafTitle = record.title;
        return;
      case 'ignored':
        // Bookkeeping records sit in the tree too (attachments, system notes): a later record may follow one.
        if (record.link !== undefined && input.agentId === null && !record.link.sidechain) {
          this.enterChain(record.link.parentUuid);
          this.leaveChain(record.link.uuid);
        }
        return;
      case 'unknown': {
        const seen = unknownTypes.get(record.type);
        if (seen === undefined) unknownTypes.set(record.type, { line, count: 1 });
        else seen.count += 1;
        return;
      }
      default: {
        const unreachable: never = record;
        throw new Error(`unhandled record ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /**
   * Gives the requests created from `file` (indices `from` to `to`) their usage, the best line of
   * their response over every file read (§1.4), and notes those that report none.
   */
  settle(file: string, from: number, to: number): void {
    for (let index = from; index < to; index += 1) {
      const request = this.requests[index];
      const line = this.requestLines[index];
      const ids = this.requestIds[index];
      const response = this.requestResponses[index];
      if (request === undefined || line === undefined || ids === undefined || response === undefined) continue;
      const usage = response.usage;
      // A `usage invalid` issue is already on the line: usage null, no second issue.
      const invalidUsage = response.invalid;
      const reported = !invalidUsage && usageReported(usage);
      const named = `response ${ids ?? 'without ids'} (${request.model})`;
      if (!reported && !invalidUsage) {
        this.issues.push({
          file,
          line,
          reason: `${named} reports no usage (every count 0 or absent); counted as a request without usage, not priced`,
          effect: 'usage-not-reported',
        });
      }
      request.usage = reported ? usage : null;
      if (response.webSearches > 0) {
        this.issues.push({
          file,
          line,
          reason:
            `${named} ran ${response.webSearches} web search${response.webSearches === 1 ? '' : 'es'} ` +
            "on the provider's side: billed per search, not in tokens, and not in this bill",
          effect: 'unbilled-web-search',
        });
      }
    }
  }

  /** The session title: an ai/custom title, else a legacy summary whose leaf is in this session (summaries may describe other sessions, §1.2). */
  resolveTitle(): string | null {
    if (this.leafTitle !== null) return this.leafTitle;
    for (let i = this.summaries.length - 1; i >= 0; i -= 1) {
      const summary = this.summaries[i];
      if (summary !== undefined && summary.leafUuid !== null && this.uuids.has(summary.leafUuid)) return summary.title;
    }
    return null;
  }
}

function firstTimestamp(file: ClaudeFileRecords): number {
  for (const { record } of file.records) {
    if ('timestampMs' in record && record.timestampMs !== null) return record.timestampMs;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * The order files are read in, whatever order they were found in: main transcripts first, by their
 * first timestamp (a session split across files reads in time order), then subagent files by agent
 * id; the path breaks ties.
 */
export function readingOrder(files: readonly ClaudeFileRecords[]): ClaudeFileRecords[] {
  const keyed = files.map((file) => ({ file, main: file.agentId === null ? 0 : 1, at: firstTimestamp(file) }));
  keyed.sort((a, b) => {
    if (a.main !== b.main) return a.main - b.main;
    if (a.main === 1 && a.file.agentId !== b.file.agentId) return agentOrder(a.file.agentId, b.file.agentId);
    if (a.at !== b.at) return a.at < b.at ? -1 : 1;
    return a.file.file < b.file.file ? -1 : a.file.file > b.file.file ? 1 : 0;
  });
  return keyed.map((k) => k.file);
}

function agentOrder(a: string | null, b: string | null): number {
  return (a ?? '') < (b ?? '') ? -1 : 1;
}

/** A file of a session: its path and, for a subagent file, the agent id from its name. */
export type ClaudeFile = { readonly file: string; readonly agentId: string | null };

/**
 * The files of a session in groups whose reading order is known without reading them: the main
 * transcripts, then each agent id's files, by agent id. Within a group of several files the order
 * depends on their first timestamps (`readingOrder`); a group of one can be read as a stream.
 */
export function readingGroups<F extends ClaudeFile>(files: readonly F[]): F[][] {
  const mains = files.filter((file) => file.agentId === null);
  const agents = new Map<string, F[]>();
  for (const file of files) {
    if (file.agentId === null) continue;
    const group = agents.get(file.agentId);
    if (group === undefined) agents.set(file.agentId, [file]);
    else group.push(file);
  }
  const ids = [...agents.keys()].sort(agentOrder);
  const groups = ids.map((id) => agents.get(id) ?? []);
  return mains.length === 0 ? groups : [mains, ...groups];
}

/** What a read file leaves for the end of the build: the requests it created and its unknown record types. */
type ReadFile = {
  readonly file: string;
  readonly requestsFrom: number;
  requestsTo: number;
  readonly unknownTypes: Map<string, { line: number; count: number }>;
};

/**
 * Builds one session from its records as they are read, file after file in reading order
 * (`readingOrder`, `readingGroups`): `beginFile`, `add` each record in line order, `endFile`, and
 * `finish` once every file has been read. Only the session being built and what links its records
 * (uuids, response keys, tool names) is held, never the records themselves.
 */
export class ClaudeSessionBuild {
  private readonly builder: Builder;
  private readonly read: ReadFile[] = [];
  private current: { readonly file: ClaudeFile; readonly read: ReadFile } | null = null;

  /**
   * `mainFiles`: how many main transcripts the session has, when known (the builder then skips
   * what only a session with several needs); unknown, it is built as if it had several.
   */
  constructor(
    private readonly input: Omit<ClaudeSessionInput, 'files' | 'issues'>,
    mainFiles?: number,
  ) {
    this.builder = new Builder(input.sessionId, input.claims, mainFiles !== undefined && mainFiles <= 1);
  }

  beginFile(file: ClaudeFile): void {
    if (this.current !== null) this.endFile();
    const read: ReadFile = {
      file: file.file,
      requestsFrom: this.builder.requests.length,
      requestsTo: this.builder.requests.length,
      unknownTypes: new Map(),
    };
    this.read.push(read);
    this.current = { file, read };
  }

  /** One record of the current file, in line order. */
  add(line: number, record: ClaudeRecord): void {
    const current = this.current;
    if (current === null) throw new Error('ClaudeSessionBuild.add before beginFile');
    // The request key is built once per line, for both passes (its string is hashed by several maps).
    const ids = record.kind === 'assistant' ? claudeRequestKey(record) : null;
    this.builder.record(record, ids, current.file, line, current.read.unknownTypes);
  }

  endFile(): void {
    if (this.current === null) return;
    this.current.read.requestsTo = this.builder.requests.length;
    this.current = null;
  }

  /** The session; `readIssues` (the files' bad lines, as read) come first among its issues. */
  finish(readIssues: readonly IngestIssue[]): Session {
    this.endFile();
    const builder = this.builder;
    const issues: IngestIssue[] = [...readIssues];
    for (const read of this.read) {
      builder.settle(read.file, read.requestsFrom, read.requestsTo);
      for (const [type, seen] of read.unknownTypes) {
        const reason = `unknown record type "${type}" (${seen.count} line${seen.count === 1 ? '' : 's'}); ignored`;
        builder.issues.push({
          file: read.file,
          line: seen.line,
          reason,
          ...(seen.count > 1 ? { lines: seen.count } : {}),
        });
      }
    }
    for (const [file, seen] of builder.claimedElsewhere) {
      const sessions = [...seen.sessions].sort().join(', ');
      builder.issues.push({
        file,
        line: seen.line,
        reason:
          `${seen.count} response${seen.count === 1 ? '' : 's'} already counted in session ${sessions} ` +
          '(a resumed copy, formats.md §1.5); not counted again here',
        effect: 'counted-elsewhere',
      });
    }
    for (const issue of builder.issues) issues.push(issue);
    return {
      id: this.input.sessionId,
      source: 'claude-code',
      title: builder.resolveTitle(),
      project: builder.project ?? this.input.projectDir,
      files: this.read.map((read) => read.file),
      items: builder.items,
      requests: builder.requests,
      events: builder.events,
      issues,
      parentSessionId: this.input.parentSessionId,
      totalsOnly: null,
    };
  }
}

/** Builds the session from its files' records (any order); bad content is already in `issues`. */
export function buildClaudeSession(input: ClaudeSessionInput, _options: { readonly content: ContentMode }): Session {
  const build = new ClaudeSessionBuild(input, input.files.filter((file) => file.agentId === null).length);
  for (const file of readingOrder(input.files)) {
    build.beginFile(file);
    for (const { line, record } of file.records) build.add(line, record);
    build.endFile();
  }
  return build.finish(input.issues);
}
