/**
 * The old sliding 1,000-character truncation (RC4, engine.md §5.6 "History"), selectable to
 * reproduce the cost of logs written before 2026-08-05. The rule is fixed for the whole project
 * (the dataset generator applies the same one): on every request, each tool result of a provider
 * response other than the `keepRecentResponses` most recent ones is shown as
 * `result.slice(0, capChars) + "\n[truncated]"` when longer than `capChars`. Not sticky: it is
 * recomputed per request, which is why it invalidated the cache every turn.
 */
import { mapPacked } from '../session/packed-array.js';
import type { HistoryMessage } from './history-message.js';
import { isToolResultPart, withReplacedResults } from './history-message.js';
import type { PruneOutcome, ReplacedToolResult } from './prune-outcome.js';

export const SLIDING_TRUNCATION_MARKER = '\n[truncated]';

/** One message under the sliding rule, computed once per message object (see `SlidingMemo`). */
type SlidingMessage<M> = {
  readonly capChars: number;
  readonly candidateCount: number;
  readonly charsBefore: number;
  /** Σ candidate lengths when the message is old (truncated where longer than the cap). */
  readonly charsAfterOld: number;
  /** Its tool results the rule truncates when the message is old. */
  readonly truncated: readonly ReplacedToolResult[];
  /** The message as shown when old; null when old and recent look the same. */
  readonly old: M | null;
};

/**
 * Reuse across calls: history messages are immutable (a changed one is a new object), so what
 * the rule makes of a message depends on the message and the cap alone. A caller that prunes the
 * same growing history on every request passes one memo to all calls; the result is the same as
 * without it, with each message's truncated copy built once instead of once per request.
 */
export type SlidingMemo = WeakMap<HistoryMessage, SlidingMessage<HistoryMessage>>;

function slidingMessage<M extends HistoryMessage>(message: M, capChars: number): SlidingMessage<M> {
  let candidateCount = 0;
  let charsBefore = 0;
  let charsAfterOld = 0;
  const truncated: ReplacedToolResult[] = [];
  for (const part of message.parts) {
    if (!isToolResultPart(part) || part.result === '') continue;
    candidateCount += 1;
    charsBefore += part.result.length;
    if (part.result.length > capChars) {
      truncated.push({ id: part.id, name: part.name, args: part.args, sizeChars: part.result.length });
      charsAfterOld += capChars + SLIDING_TRUNCATION_MARKER.length;
    } else {
      charsAfterOld += part.result.length;
    }
  }
  const old =
    truncated.length === 0
      ? null
      : withReplacedResults(message, (part) =>
          part.result.length > capChars ? `${part.result.slice(0, capChars)}${SLIDING_TRUNCATION_MARKER}` : undefined,
        );
  return { capChars, candidateCount, charsBefore, charsAfterOld, truncated, old };
}

/** What the rule makes of an assistant message, from `memo` when it was worked out under the same cap. */
function slidingMessageOf<M extends HistoryMessage>(
  message: M,
  capChars: number,
  memo?: SlidingMemo,
): SlidingMessage<M> {
  let shown = memo?.get(message) as SlidingMessage<M> | undefined;
  if (shown === undefined || shown.capChars !== capChars) {
    shown = slidingMessage(message, capChars);
    memo?.set(message, shown);
  }
  return shown;
}

/**
 * One message as `slidingLegacyTruncate` shows it, given whether it is old (not among the most
 * recent responses): the same object that call returns for it with the same `memo`.
 */
export function slidingShownMessage<M extends HistoryMessage>(
  message: M,
  old: boolean,
  capChars: number,
  memo?: SlidingMemo,
): M {
  if (message.role !== 'assistant' || !old) return message;
  return slidingMessageOf(message, capChars, memo).old ?? message;
}

/** Applies the sliding rule to a provider-facing history (pure: no state; `memo` only saves work). */
export function slidingLegacyTruncate<M extends HistoryMessage>(
  messages: readonly M[],
  keepRecentResponses: number,
  capChars: number,
  memo?: SlidingMemo,
): PruneOutcome<M> {
  // The `keepRecentResponses` most recent responses: by `responseId` when set (FreeCode stores one
  // response as several messages), else the message alone.
  const recentResponses = new Set<string>();
  const recentMessages = new Set<number>();
  for (let i = messages.length - 1; i >= 0 && recentResponses.size + recentMessages.size < keepRecentResponses; i--) {
    const message = messages[i];
    if (message?.role !== 'assistant') continue;
    if (message.responseId === undefined) recentMessages.add(i);
    else recentResponses.add(message.responseId);
  }

  let candidateCount = 0;
  let charsBefore = 0;
  let charsAfter = 0;
  const truncated: ReplacedToolResult[] = [];
  const out = mapPacked(messages, (message, index) => {
    if (message.role !== 'assistant') return message;
    const shown = slidingMessageOf(message, capChars, memo);
    candidateCount += shown.candidateCount;
    charsBefore += shown.charsBefore;
    const old = !(message.responseId === undefined
      ? recentMessages.has(index)
      : recentResponses.has(message.responseId));
    if (!old || shown.old === null) {
      charsAfter += shown.charsBefore;
      return message;
    }
    charsAfter += shown.charsAfterOld;
    for (const entry of shown.truncated) truncated.push(entry);
    return shown.old;
  });
  return {
    messages: out,
    stats: {
      candidateCount,
      replacedCount: truncated.length,
      newlyReplacedCount: truncated.length,
      charsBefore,
      charsAfter,
    },
    newlyReplaced: truncated,
  };
}
