/**
 * Claude Code records → one normalized session (pure). The main transcript gives the items and the
 * main-agent requests in file order; inline sidechains (1.0.x) and subagent files (2.x) give
 * requests attributed through `agentId`, never items (formats.md §1.6). One request per response:
 * lines are grouped by (message.id, requestId), falling back to message.id, and the LAST line of a
 * group gives its usage (output grows across lines, §1.4). A group belongs to the first file that
 * holds it; its copies in other files (acompact / aside_question replays, §1.5) are not counted.
 */
import type { HarnessEvent, IngestIssue, Item, Request, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { AssistantRecord, ClaudeRecord, UserRecord } from './record.js';

export type ClaudeFileRecords = {
  readonly file: string;
  /** Subagent id from the file name (`agent-<id>.jsonl`); null for the main transcript. */
  readonly agentId: string | null;
  readonly records: readonly { readonly line: number; readonly record: ClaudeRecord }[];
};

export type ClaudeSessionInput = {
  readonly sessionId: string;
  /** Main transcript first, then subagent files. */
  readonly files: readonly ClaudeFileRecords[];
  readonly issues: readonly IngestIssue[];
  /** Session this one belongs to when only a subagent file was found (no main transcript). */
  readonly parentSessionId: string | null;
  readonly projectDir: string | null;
};

export const CLAUDE_PROVIDER = 'anthropic';

type MutableRequest = { -readonly [K in keyof Request]: Request[K] };

/** The request key of formats.md §1.4 rule: (message.id, requestId), else message.id; null when neither id exists. */
export function claudeRequestKey(record: Pick<AssistantRecord, 'messageId' | 'requestId'>): string | null {
  if (record.messageId === null) return null;
  return record.requestId === null ? record.messageId : `${record.messageId}:${record.requestId}`;
}

class Builder {
  readonly items: Item[] = [];
  readonly requests: MutableRequest[] = [];
  readonly events: HarnessEvent[] = [];
  readonly issues: IngestIssue[];
  /** Request key → owning file and request index. */
  private readonly byKey = new Map<string, { readonly file: string; readonly index: number }>();
  private readonly toolNames = new Map<string, string>();
  /** Inline sidechain uuid → the uuid of its sidechain's root (the agent's identity in 1.0.x). */
  private readonly sidechainRoot = new Map<string, string>();
  /** A `compact_boundary` waiting for its summary record. */
  private pendingBoundary: number | null = null;
  title: string | null = null;
  private leafTitle: string | null = null;
  readonly uuids = new Set<string>();
  private readonly summaries: { readonly leafUuid: string | null; readonly title: string }[] = [];
  project: string | null = null;

  constructor(issues: readonly IngestIssue[]) {
    this.issues = [...issues];
  }

  agentOf(record: AssistantRecord | UserRecord, fileAgentId: string | null): string | null {
    if (fileAgentId !== null) return record.agentId ?? fileAgentId;
    if (!record.sidechain) return null;
    if (record.agentId !== null) return record.agentId;
    const root = (record.parentUuid !== null ? this.sidechainRoot.get(record.parentUuid) : undefined) ?? record.uuid ?? 'sidechain';
    if (record.uuid !== null) this.sidechainRoot.set(record.uuid, root);
    return `sidechain:${root}`;
  }

  assistant(record: AssistantRecord, file: string, line: number, agentId: string | null): void {
    if (record.apiError !== null) {
      if (agentId === null) {
        this.events.push({ kind: 'model_error', itemIndex: this.items.length, requestIndex: this.requests.length, timestampMs: record.timestampMs, errorKind: 'api_error', message: record.apiError });
      }
      return;
    }
    const key = claudeRequestKey(record) ?? `${file}:${line}`;
    const owner = this.byKey.get(key);
    if (owner !== undefined && owner.file !== file) return; // a replayed copy (§1.5)
    if (owner === undefined) {
      this.byKey.set(key, { file, index: this.requests.length });
      this.requests.push({
        index: this.requests.length,
        itemIndex: this.items.length,
        model: record.model,
        provider: CLAUDE_PROVIDER,
        timestampMs: record.timestampMs,
        usage: record.usage,
        agentId,
      });
    } else {
      const request = this.requests[owner.index];
      // Later lines of a response hold the final output count (§1.4): the last line wins.
      // The last line with usage wins; an invalid one leaves the request without usage, never an earlier partial one.
      if (request !== undefined && (record.usage !== null || record.usageInvalid)) request.usage = record.usage;
    }
    for (const call of record.toolCalls) this.toolNames.set(call.callId, call.name);
    if (agentId !== null) return;
    let chars = record.textChars;
    for (const call of record.toolCalls) chars += call.name.length + call.argsJson.length;
    if (chars === 0 && record.thinkingChars === 0) return;
    this.items.push({
      kind: 'assistant',
      id: record.uuid ?? `${file}:${line}`,
      timestampMs: record.timestampMs,
      text: record.text,
      chars,
      imageParts: 0,
      imageChars: 0,
      responseId: claudeRequestKey(record),
      toolCalls: [...record.toolCalls],
      thinkingChars: record.thinkingChars,
    });
  }

  user(record: UserRecord, file: string, line: number): void {
    const id = record.uuid ?? `${file}:${line}`;
    if (record.isCompactSummary) {
      const itemIndex = this.items.length;
      this.items.push({ kind: 'summary', id, timestampMs: record.timestampMs, text: record.content.text, chars: record.content.chars, imageParts: 0, imageChars: 0 });
      const pending = this.pendingBoundary === null ? undefined : this.events[this.pendingBoundary];
      if (pending !== undefined && pending.kind === 'compaction') {
        this.events[this.pendingBoundary ?? 0] = { ...pending, summaryItemId: id };
      } else {
        // Legacy compaction (1.0.x): no boundary record, only the summary (§1.7).
        this.events.push({ kind: 'compaction', itemIndex, requestIndex: this.requests.length, timestampMs: record.timestampMs, trigger: 'unknown', tokensBefore: null, tokensAfter: null, tokenUnit: 'provider', summaryItemId: id });
      }
      this.pendingBoundary = null;
      return;
    }
    this.pendingBoundary = null;
    for (const [i, result] of record.toolResults.entries()) {
      this.items.push({
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
      this.items.push({ kind: 'user', id, timestampMs: record.timestampMs, ...record.content, synthetic: record.isMeta ? 'meta' : null });
    }
  }

  record(record: ClaudeRecord, input: ClaudeFileRecords, line: number, unknownTypes: Map<string, { line: number; count: number }>): void {
    switch (record.kind) {
      case 'assistant':
      case 'user': {
        if (record.uuid !== null) this.uuids.add(record.uuid);
        if (this.project === null && record.cwd !== null) this.project = record.cwd;
        const agentId = this.agentOf(record, input.agentId);
        if (record.kind === 'assistant') this.assistant(record, input.file, line, agentId);
        else if (agentId === null) this.user(record, input.file, line);
        return;
      }
      case 'compact_boundary':
        if (input.agentId !== null || record.sidechain) return;
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
        this.events.push({ kind: 'model_error', itemIndex: this.items.length, requestIndex: this.requests.length, timestampMs: record.timestampMs, errorKind: 'api_error', message: record.message });
        return;
      case 'title':
        if (record.fromSummary) this.summaries.push({ leafUuid: record.leafUuid, title: record.title });
        else this.leafTitle = record.title;
        return;
      case 'ignored':
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

/** Builds the session from its files' records (main transcript first); bad content is already in `issues`. */
export function buildClaudeSession(input: ClaudeSessionInput, _options: { readonly content: ContentMode }): Session {
  const builder = new Builder(input.issues);
  for (const file of input.files) {
    const unknownTypes = new Map<string, { line: number; count: number }>();
    for (const { line, record } of file.records) builder.record(record, file, line, unknownTypes);
    for (const [type, seen] of unknownTypes) {
      builder.issues.push({ file: file.file, line: seen.line, reason: `unknown record type "${type}" (${seen.count} line${seen.count === 1 ? '' : 's'}); ignored` });
    }
  }
  return {
    id: input.sessionId,
    source: 'claude-code',
    title: builder.resolveTitle(),
    project: builder.project ?? input.projectDir,
    files: input.files.map((f) => f.file),
    items: builder.items,
    requests: builder.requests,
    events: builder.events,
    issues: builder.issues,
    parentSessionId: input.parentSessionId,
    totalsOnly: null,
  };
}
