/**
 * Codex rollout records → one normalized session (pure; formats.md §2). Requests come from
 * `token_count` events: one whose `total_token_usage` equals the previous one is the doubled
 * copy and is skipped; one whose total drops starts a new segment (a resume restarts the
 * process's counter, §2.4) and still counts its `last_token_usage`, so no request is lost or
 * counted twice. Usage follows the OpenAI convention: input includes cached (read), output
 * includes reasoning. The model is the latest `turn_context.model` (or `info.model`).
 *
 * Forks (§2.2): a rollout whose first `session_meta` has `forked_from_id` or a sub-agent `source`
 * continues with a copy of the parent's `session_meta` and a replay of the parent's history,
 * written in one burst at the fork, `token_count` events included. Those events are the parent's
 * requests: they set the cumulative total the child starts from and are never the child's. The
 * replay is the block from the second `session_meta` to the first gap of more than
 * `REPLAY_GAP_MS` between line timestamps (the child's own first response is a model call away).
 * A sub-agent rollout found with its parent is read into the parent's session, its requests
 * attributed through `agentId` (as Claude Code subagents are); alone, it is its own session that
 * names its parent.
 */
import type { HarnessEvent, IngestIssue, Item, Request, Session } from '../../session/model.js';
import { normalizeUsage, type UsageReading } from '../usage.js';
import type { CodexRecord, CodexTokenUsage } from './record.js';

export type CodexRolloutRecords = {
  readonly file: string;
  readonly records: readonly { readonly line: number; readonly record: CodexRecord }[];
};

export type CodexSessionInput = {
  readonly sessionId: string;
  readonly file: string;
  readonly records: readonly { readonly line: number; readonly record: CodexRecord }[];
  readonly issues: readonly IngestIssue[];
  /** Sub-agent rollouts of this session (any depth), each with the agent id its requests carry. */
  readonly subagents?: readonly (CodexRolloutRecords & { readonly agentId: string })[];
};

/**
 * Longest pause between two lines of a fork's replayed history. The replay is written at once
 * (milliseconds apart); the child's first own `token_count` follows a model call, which takes longer.
 */
export const REPLAY_GAP_MS = 1000;

const UNKNOWN_MODEL = 'unknown';
/** User messages Codex injects as context rather than typed by the user. */
const CONTEXT_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions',
  '<permissions instructions>',
];

function count(value: unknown): number | null {
  // Safe integers only: differences of totals above 2^53 would be rounding noise posing as usage.
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The comparable identity of a cumulative total; null when it has no counts. */
function totalKey(total: CodexTokenUsage): string | null {
  const values = [
    total.inputTokens,
    total.cachedInputTokens,
    total.cacheWriteTokens,
    total.outputTokens,
    total.reasoningTokens,
    total.totalTokens,
  ].map(count);
  return values.every((v) => v === null) ? null : values.join(',');
}

function totalTokensOf(total: CodexTokenUsage): number | null {
  return count(total.totalTokens) ?? (count(total.inputTokens) ?? 0) + (count(total.outputTokens) ?? 0);
}

function difference(current: CodexTokenUsage, previous: CodexTokenUsage | null): CodexTokenUsage {
  const minus = (a: unknown, b: unknown): unknown => {
    const x = count(a);
    const y = previous === null ? 0 : (count(b) ?? 0);
    return x === null ? a : x - y;
  };
  return {
    inputTokens: minus(current.inputTokens, previous?.inputTokens),
    cachedInputTokens: minus(current.cachedInputTokens, previous?.cachedInputTokens),
    cacheWriteTokens: minus(current.cacheWriteTokens, previous?.cacheWriteTokens),
    outputTokens: minus(current.outputTokens, previous?.outputTokens),
    reasoningTokens: minus(current.reasoningTokens, previous?.reasoningTokens),
    totalTokens: minus(current.totalTokens, previous?.totalTokens),
  };
}

function usageOf(raw: CodexTokenUsage): UsageReading {
  return normalizeUsage({
    inputTokens: raw.inputTokens,
    cacheReadTokens: raw.cachedInputTokens,
    cacheWriteTokens: raw.cacheWriteTokens,
    outputTokens: raw.outputTokens,
    reasoningTokens: raw.reasoningTokens,
  });
}

type RolloutRead = {
  readonly items: Item[];
  readonly requests: Request[];
  readonly events: HarnessEvent[];
  readonly issues: IngestIssue[];
  readonly project: string | null;
  readonly parentSessionId: string | null;
};

function recordTimestamp(record: CodexRecord): number | null {
  return 'timestampMs' in record ? record.timestampMs : null;
}

/**
 * The records of a fork's replay of its parent's history, as `[start, end)` indexes: from the
 * second `session_meta` to the first pause longer than `REPLAY_GAP_MS`. Null when the rollout is
 * not a fork or holds no copy of its parent's meta.
 */
export function forkReplay(
  records: readonly { readonly record: CodexRecord }[],
): { readonly start: number; readonly end: number } | null {
  const first = records[0]?.record;
  if (first?.kind !== 'session_meta' || (first.forkedFromId === null && !first.subagent)) return null;
  const start = records.findIndex((entry, i) => i > 0 && entry.record.kind === 'session_meta');
  if (start === -1) return null;
  let previous = recordTimestamp(records[start]?.record ?? first) ?? first.timestampMs;
  let end = start + 1;
  for (; end < records.length; end += 1) {
    const at = recordTimestamp(records[end]?.record ?? first);
    if (at === null) continue;
    if (previous !== null && at - previous > REPLAY_GAP_MS) break;
    previous = at;
  }
  return { start, end };
}

/** One rollout's items, requests and events; `agentId` is set on every request of a sub-agent's rollout. */
function readRollout(
  input: CodexRolloutRecords & { readonly sessionId: string; readonly issues: readonly IngestIssue[] },
  agentId: string | null,
): RolloutRead {
  const items: Item[] = [];
  const requests: Request[] = [];
  const events: HarnessEvent[] = [];
  const issues: IngestIssue[] = [...input.issues];
  const replay = forkReplay(input.records);
  let replayedRequests = 0;
  const unknownTypes = new Map<string, { line: number; count: number }>();
  let metaSeen = false;
  let project: string | null = null;
  let provider: string | null = null;
  let parentSessionId: string | null = null;
  let forkedFrom: string | null = null;
  let model: string | null = null;
  let previousTotal: CodexTokenUsage | null = null;
  let previousKey: string | null = null;
  /** Output items not yet claimed by a request: a token_count written after its response claims them. */
  let firstUnclaimedOutput: number | null = null;
  /** A token_count written before its response: the output items that follow belong to it. */
  let openRequest = false;
  let pendingCompaction = false;
  const toolNames = new Map<string, string>();

  const addOutput = (item: Item): void => {
    if (!openRequest && firstUnclaimedOutput === null) firstUnclaimedOutput = items.length;
    items.push(item);
  };
  const addInput = (item: Item): void => {
    openRequest = false;
    items.push(item);
  };

  for (const [i, { line, record }] of input.records.entries()) {
    const replayed = replay !== null && i >= replay.start && i < replay.end;
    switch (record.kind) {
      case 'session_meta':
        // Forked or resumed rollouts copy the parent's meta after their own (§2.2): the first one is this session's.
        if (metaSeen) break;
        metaSeen = true;
        project = record.cwd;
        provider = record.provider;
        parentSessionId = record.parentThreadId ?? record.forkedFromId;
        forkedFrom = record.forkedFromId ?? record.parentThreadId;
        if (record.instructions !== null && record.instructions.chars > 0) {
          items.push({
            kind: 'system',
            id: `${input.sessionId}:instructions`,
            timestampMs: null,
            ...record.instructions,
            imageParts: 0,
            imageChars: 0,
          });
        }
        break;
      case 'turn_context':
        if (record.model !== null) model = record.model;
        break;
      case 'token_count': {
        if (record.total === null && record.last === null) break; // info:null, a rate-limit update
        const key = record.total === null ? null : totalKey(record.total);
        if (key !== null && key === previousKey) break; // the doubled copy (§2.4)
        let raw = record.last;
        if (record.total !== null && previousTotal !== null) {
          const now = totalTokensOf(record.total);
          const before = totalTokensOf(previousTotal);
          const reset = now !== null && before !== null && now < before;
          if (raw === null) raw = difference(record.total, reset ? null : previousTotal);
        } else if (raw === null && record.total !== null) {
          raw = difference(record.total, null);
        }
        if (record.total !== null) {
          previousTotal = record.total;
          previousKey = key;
        }
        if (raw === null) break;
        if (replayed) {
          // The parent's request, replayed at the fork: it only sets the total the child starts from.
          replayedRequests += 1;
          openRequest = firstUnclaimedOutput === null;
          firstUnclaimedOutput = null;
          break;
        }
        const { usage, problem, invalid } = usageOf(raw);
        // An invalid count is not a repair: the line's usage is not used (a `usage invalid` issue).
        if (problem !== null)
          issues.push({
            file: input.file,
            line,
            reason: problem,
            ...(invalid === true ? {} : { effect: 'repaired' as const }),
          });
        // A request whose usage is invalid still happened: it is kept, unpriced, with usage null.
        if (usage === null && invalid !== true) break;
        if (usage !== null && usage.promptTokens === 0 && usage.outputTokens === 0) {
          // Every count 0: the event reports no usage; not a request of 0 tokens (a $0 bill).
          const reason = 'token_count whose usage is all zero; counted as a request without usage, not priced';
          issues.push({ file: input.file, line, reason, effect: 'usage-not-reported' });
        }
        const itemIndex = firstUnclaimedOutput ?? items.length;
        openRequest = firstUnclaimedOutput === null;
        firstUnclaimedOutput = null;
        const reported = usage !== null && (usage.promptTokens > 0 || usage.outputTokens > 0);
        requests.push({
          index: requests.length,
          itemIndex,
          model: record.model ?? model ?? UNKNOWN_MODEL,
          provider,
          timestampMs: record.timestampMs,
          usage: reported ? usage : null,
          agentId,
        });
        break;
      }
      case 'message': {
        const id = `${input.sessionId}:${line}`;
        // The item's fields written out (not `{ ...base, kind }`): on Node 20 (V8 11) each property
        // added after a spread costs ~1 µs (bench/README.md, spread16).
        const { timestampMs } = record;
        const { text, chars } = record.content;
        if (record.role === 'assistant') {
          addOutput({
            id,
            timestampMs,
            text,
            chars,
            imageParts: 0,
            imageChars: 0,
            kind: 'assistant',
            responseId: null,
            toolCalls: [],
            thinkingChars: 0,
          });
        } else if (record.role === 'developer' || record.role === 'system') {
          addInput({ id, timestampMs, text, chars, imageParts: 0, imageChars: 0, kind: 'system' });
        } else {
          const synthetic =
            text !== null && CONTEXT_PREFIXES.some((prefix) => text.startsWith(prefix)) ? 'context' : null;
          addInput({ id, timestampMs, text, chars, imageParts: 0, imageChars: 0, kind: 'user', synthetic });
        }
        break;
      }
      case 'reasoning':
        addOutput({
          kind: 'assistant',
          id: `${input.sessionId}:${line}`,
          timestampMs: record.timestampMs,
          text: '',
          chars: 0,
          imageParts: 0,
          imageChars: 0,
          responseId: null,
          toolCalls: [],
          thinkingChars: record.thinkingChars,
        });
        break;
      case 'tool_call': {
        const callId = record.call.callId === '' ? `${input.sessionId}:${line}` : record.call.callId;
        toolNames.set(callId, record.call.name);
        addOutput({
          kind: 'assistant',
          id: `${input.sessionId}:${line}`,
          timestampMs: record.timestampMs,
          text: '',
          chars: record.call.name.length + record.call.argsJson.length,
          imageParts: 0,
          imageChars: 0,
          responseId: null,
          toolCalls: [{ ...record.call, callId }],
          thinkingChars: 0,
        });
        break;
      }
      case 'tool_output':
        addInput({
          kind: 'tool_result',
          id: `${input.sessionId}:${line}`,
          timestampMs: record.timestampMs,
          ...record.output,
          imageParts: 0,
          imageChars: 0,
          callId: record.callId === '' ? `${input.sessionId}:${line}` : record.callId,
          toolName: toolNames.get(record.callId) ?? '',
          failed: false,
        });
        break;
      case 'compacted': {
        const id = `${input.sessionId}:${line}`;
        const itemIndex = items.length;
        addInput({
          kind: 'summary',
          id,
          timestampMs: record.timestampMs,
          ...record.summary,
          imageParts: 0,
          imageChars: 0,
        });
        events.push({
          kind: 'compaction',
          itemIndex,
          requestIndex: requests.length,
          timestampMs: record.timestampMs,
          trigger: 'unknown',
          tokensBefore: null,
          tokensAfter: null,
          tokenUnit: 'provider',
          summaryItemId: id,
        });
        pendingCompaction = true;
        break;
      }
      case 'context_compacted':
        // Usually follows a `compacted` line (§2.5); alone, it is a compaction without its summary.
        if (!pendingCompaction) {
          events.push({
            kind: 'compaction',
            itemIndex: items.length,
            requestIndex: requests.length,
            timestampMs: record.timestampMs,
            trigger: 'unknown',
            tokensBefore: null,
            tokensAfter: null,
            tokenUnit: 'provider',
            summaryItemId: null,
          });
        }
        pendingCompaction = false;
        break;
      case 'error':
        events.push({
          kind: 'model_error',
          itemIndex: items.length,
          requestIndex: requests.length,
          timestampMs: record.timestampMs,
          errorKind: 'error',
          message: record.message,
        });
        break;
      case 'ignored':
        break;
      case 'unknown': {
        const seen = unknownTypes.get(record.type);
        if (seen === undefined) unknownTypes.set(record.type, { line, count: 1 });
        else seen.count += 1;
        break;
      }
      default: {
        const unreachable: never = record;
        throw new Error(`unhandled record ${JSON.stringify(unreachable)}`);
      }
    }
    if (record.kind !== 'compacted' && record.kind !== 'ignored' && record.kind !== 'context_compacted')
      pendingCompaction = false;
  }
  for (const [type, seen] of unknownTypes) {
    const reason = `unknown record type "${type}" (${seen.count} line${seen.count === 1 ? '' : 's'}); ignored`;
    issues.push({ file: input.file, line: seen.line, reason, ...(seen.count > 1 ? { lines: seen.count } : {}) });
  }
  if (replay !== null) {
    const first = input.records[replay.start]?.line ?? 0;
    const last = input.records[replay.end - 1]?.line ?? first;
    issues.push({
      file: input.file,
      line: first,
      reason:
        `forked from ${forkedFrom ?? 'another rollout'}: lines ${first}–${last} replay the parent's history; ` +
        `its ${replayedRequests} request${replayedRequests === 1 ? '' : 's'} there are the parent's ` +
        'and are not counted here',
      effect: 'fork-replay',
    });
  }
  return { items, requests, events, issues, project, parentSessionId };
}

/** Builds the session from its rollout (and its sub-agents' rollouts); bad content is already in `issues`. */
export function buildCodexSession(input: CodexSessionInput): Session {
  const main = readRollout(input, null);
  const requests = [...main.requests];
  const issues = [...main.issues];
  const files = [input.file];
  for (const child of input.subagents ?? []) {
    const read = readRollout({ ...child, sessionId: child.agentId, issues: [] }, child.agentId);
    // A sub-agent's context is its own: its requests are billed here, its items are not the session's
    // (as Claude Code subagents).
    for (const request of read.requests) {
      requests.push({ ...request, index: requests.length, itemIndex: main.items.length });
    }
    issues.push(...read.issues);
    files.push(child.file);
  }
  return {
    id: input.sessionId,
    source: 'codex',
    title: null,
    project: main.project,
    files,
    items: main.items,
    requests,
    events: main.events,
    issues,
    parentSessionId: main.parentSessionId,
    totalsOnly: null,
  };
}
