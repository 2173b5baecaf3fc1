/**
 * Rollout records → the session's timeline (engine.md §5, §6): provider responses with their tool
 * calls attached, placeholders where a user message must have been, harness events and billed
 * side requests, in file order (`seq` is not unique, §6.2). Pure: no I/O.
 */
import type { HarnessEvent, IngestIssue, MeasuredUsage } from '../../session/model.js';
import type { RolloutArgs, RolloutRecord } from './rollout.js';

/** A model tool call with what the rollout knows of its result. */
export type RolloutCall = {
  readonly eventId: string;
  readonly line: number;
  readonly timestampMs: number;
  readonly tool: string;
  /** The rollout line's `args`, to be written with `JSON.stringify` where an item shows them (never the log's text: `ToolCall.argsStringified`). */
  readonly args: RolloutArgs;
  readonly callId: string | null;
  output: {
    readonly eventId: string;
    readonly timestampMs: number;
    readonly text: string | null;
    readonly chars: number;
    readonly failed: boolean;
  } | null;
};

/** One provider response and the request that produced it. */
export type RolloutResponse = {
  readonly eventId: string;
  readonly line: number;
  /** When the prompt was sent (`model.request`), else when the response was logged. */
  readonly timestampMs: number;
  /** When the response was logged (`model.response`). */
  readonly respondedAtMs: number;
  readonly model: string | null;
  readonly provider: string | null;
  readonly usage: MeasuredUsage | null;
  readonly toolCallNames: readonly string[] | null;
  readonly textChars: number;
  readonly thinkingChars: number;
  /** `model.request.promptChars` of the request (engine.md §6.5), used to size unknown user prompts. */
  readonly promptChars: number | null;
  readonly calls: RolloutCall[];
};

/** A harness event before its position in the session is known. */
export type EventDraft = HarnessEvent extends infer E
  ? E extends HarnessEvent
    ? Omit<E, 'itemIndex' | 'requestIndex'>
    : never
  : never;

/** Where the rollout implies a user message: a run start (turn-0), an auto-poke, or a steer. */
export type UserPlaceholder = {
  readonly origin: 'run_start' | 'poke' | 'steer';
  /** The line that implies the message (its request's `model.request`, or the poke/steer event). */
  readonly line: number;
  readonly timestampMs: number;
  readonly eventId: string;
  /** The first `model.request` sent after the message (successful or not), set once it is read. */
  nextRequest: { readonly eventId: string; readonly promptChars: number | null } | null;
};

export type TimelineStep =
  | { readonly kind: 'user_placeholder'; readonly placeholder: UserPlaceholder }
  | { readonly kind: 'response'; readonly response: RolloutResponse }
  | { readonly kind: 'event'; readonly event: EventDraft; readonly line: number }
  | {
      readonly kind: 'side_request';
      readonly timestampMs: number;
      readonly agentId: string;
      readonly model: string | null;
      readonly provider: string | null;
      readonly usage: MeasuredUsage | null;
    };

export type Timeline = { readonly steps: readonly TimelineStep[]; readonly issues: readonly IngestIssue[] };

const FIRST_TURN_ID = 'turn-0';

/**
 * True when the compaction at `index` is the overflow path: a `context.overflow` follows it before
 * the next model event (newest, §5.4 step 5), or the last model event before it was a failed send
 * (`compactAndRetry` is the only compaction that runs after a `model.error`; `maybeCompact` runs
 * after a response, §5.3 — this also covers Aug logs, which never wrote `context.overflow`).
 */
function isOverflowCompaction(
  records: readonly RolloutRecord[],
  index: number,
  lastModelKind: ModelKind | null,
): boolean {
  if (lastModelKind === 'error') return true;
  for (let i = index + 1; i < records.length; i += 1) {
    const next = records[i];
    if (next === undefined) break;
    if (next.kind === 'context_overflow') return true;
    if (
      next.kind === 'model_request' ||
      next.kind === 'model_response' ||
      next.kind === 'model_error' ||
      next.kind === 'compact_occurred'
    )
      break;
  }
  return false;
}

type ModelKind = 'request' | 'response' | 'error';

/**
 * Folds rollout records into a timeline. A user message is placed before a `model.request` whose
 * `turnId` is `turn-0` (the loop restarts its turn counter for every user message, §5.1; this
 * holds whether `turn.started` came before the call, newest, or after the response, Aug), except
 * for the overflow retry: a `turn-0` request after a failed send and a compaction re-sends the
 * same turn (§5.4). The first request of a file always starts a user message. Tool calls attach
 * to the response they follow; outputs pair with calls by `callId`, else first-in-first-out per
 * tool name (§6.7); codemode inner calls (`parentCallId`) are not model calls and are skipped.
 */
export function buildTimeline(file: string, records: readonly RolloutRecord[]): Timeline {
  const steps: TimelineStep[] = [];
  const issues: IngestIssue[] = [];
  let pendingRequest: Extract<RolloutRecord, { kind: 'model_request' }> | null = null;
  let current: RolloutResponse | null = null;
  let lastModelKind: ModelKind | null = null;
  let compactedSinceError = false;
  let sawRequest = false;
  const nestedCallIds = new Set<string>();
  let awaitingRequest: UserPlaceholder[] = [];

  records.forEach((rec, index) => {
    switch (rec.kind) {
      case 'model_request': {
        const isRetry = lastModelKind === 'error' && compactedSinceError;
        const nextRequest = { eventId: rec.eventId, promptChars: rec.promptChars };
        for (const placeholder of awaitingRequest) placeholder.nextRequest = nextRequest;
        awaitingRequest = [];
        if (!sawRequest || (rec.turnId === FIRST_TURN_ID && !isRetry)) {
          steps.push({
            kind: 'user_placeholder',
            placeholder: {
              origin: 'run_start',
              line: rec.line,
              timestampMs: rec.timestampMs,
              eventId: rec.eventId,
              nextRequest,
            },
          });
        }
        sawRequest = true;
        pendingRequest = rec;
        current = null;
        lastModelKind = 'request';
        break;
      }
      case 'model_response': {
        if (!sawRequest) {
          // No model.request before the first response (a lost line): the session still began with a prompt.
          steps.push({
            kind: 'user_placeholder',
            placeholder: {
              origin: 'run_start',
              line: rec.line,
              timestampMs: rec.timestampMs,
              eventId: rec.eventId,
              nextRequest: null,
            },
          });
          sawRequest = true;
        }
        const request: Extract<RolloutRecord, { kind: 'model_request' }> | null = pendingRequest;
        current = {
          eventId: rec.eventId,
          line: rec.line,
          timestampMs: request?.timestampMs ?? rec.timestampMs,
          respondedAtMs: rec.timestampMs,
          model: rec.model ?? request?.model ?? null,
          provider: rec.provider ?? request?.provider ?? null,
          usage: rec.usage,
          toolCallNames: rec.toolCallNames,
          textChars: rec.textChars,
          thinkingChars: rec.thinkingChars,
          promptChars: request?.promptChars ?? null,
          calls: [],
        };
        steps.push({ kind: 'response', response: current });
        pendingRequest = null;
        lastModelKind = 'response';
        break;
      }
      case 'model_error':
        steps.push({
          kind: 'event',
          line: rec.line,
          event: { kind: 'model_error', timestampMs: rec.timestampMs, errorKind: rec.errorKind, message: rec.message },
        });
        pendingRequest = null;
        current = null;
        lastModelKind = 'error';
        compactedSinceError = false;
        break;
      case 'function_call':
      case 'function_denied': {
        if (rec.kind === 'function_call' && rec.nested) {
          if (rec.callId !== null) nestedCallIds.add(rec.callId);
          break;
        }
        if (current === null) {
          issues.push({
            file,
            line: rec.line,
            reason: `${rec.kind === 'function_call' ? 'function.call' : 'function.denied'} outside a model response`,
          });
          break;
        }
        current.calls.push({
          eventId: rec.eventId,
          line: rec.line,
          timestampMs: rec.timestampMs,
          tool: rec.tool,
          args: rec.args,
          callId: rec.callId,
          // A denied call is answered with the denial text (§6.3: "text returned to the model").
          output:
            rec.kind === 'function_denied'
              ? {
                  eventId: rec.eventId,
                  timestampMs: rec.timestampMs,
                  text: rec.reason,
                  chars: rec.reason.length,
                  failed: true,
                }
              : null,
        });
        break;
      }
      case 'function_output': {
        if (rec.callId !== null && nestedCallIds.has(rec.callId)) break;
        const call = current?.calls.find((c) =>
          rec.callId !== null && c.callId !== null ? c.callId === rec.callId : c.output === null && c.tool === rec.tool,
        );
        if (call === undefined) {
          issues.push({
            file,
            line: rec.line,
            reason: `function.output for "${rec.tool}" without a matching function.call`,
          });
          break;
        }
        call.output = {
          eventId: rec.eventId,
          timestampMs: rec.timestampMs,
          text: rec.output,
          chars: rec.outputChars,
          failed: rec.failed ?? false,
        };
        break;
      }
      case 'compact_occurred':
        steps.push({
          kind: 'event',
          line: rec.line,
          event: {
            kind: 'compaction',
            timestampMs: rec.timestampMs,
            trigger: isOverflowCompaction(records, index, lastModelKind) ? 'overflow' : 'auto',
            tokensBefore: rec.beforeTokens,
            tokensAfter: rec.afterTokens,
            // compact.occurred holds MemoryService estimates, not provider counts (§6.6).
            tokenUnit: 'estimate',
            summaryItemId: null,
          },
        });
        compactedSinceError = true;
        break;
      case 'context_overflow':
        steps.push({
          kind: 'event',
          line: rec.line,
          event: {
            kind: 'overflow',
            timestampMs: rec.timestampMs,
            tokensBefore: rec.beforeTokens,
            tokenUnit: 'estimate',
          },
        });
        break;
      case 'hook_blocked':
        steps.push({
          kind: 'event',
          line: rec.line,
          event: { kind: 'hook_block', timestampMs: rec.timestampMs, hookName: rec.hookName, reason: rec.reason },
        });
        break;
      case 'subagent':
        steps.push({
          kind: 'event',
          line: rec.line,
          event: { kind: 'subagent', timestampMs: rec.timestampMs, phase: rec.phase, subagentId: rec.subagentId },
        });
        break;
      case 'poke_triggered':
      case 'message_steered': {
        const placeholder: UserPlaceholder = {
          origin: rec.kind === 'poke_triggered' ? 'poke' : 'steer',
          line: rec.line,
          timestampMs: rec.timestampMs,
          // A steer's event names the store id of its message; a poke has none.
          eventId: rec.kind === 'message_steered' ? rec.messageId : rec.eventId,
          nextRequest: null,
        };
        awaitingRequest.push(placeholder);
        steps.push({ kind: 'user_placeholder', placeholder });
        break;
      }
      case 'side_request':
        steps.push({
          kind: 'side_request',
          timestampMs: rec.timestampMs,
          agentId: rec.agentId,
          model: rec.model,
          provider: rec.provider,
          usage: rec.usage,
        });
        break;
      default: {
        const unreachable: never = rec;
        throw new Error(`unhandled rollout record ${JSON.stringify(unreachable)}`);
      }
    }
  });
  return { steps, issues };
}
