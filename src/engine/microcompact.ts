/**
 * The removed time-based microcompact (RC3, engine.md §5.7), selectable to reproduce logs written
 * before 2026-08-05. Rule fixed for the project: at the start of a user message's run, if the
 * previous history message is more than 5 minutes older than the new user message, every tool
 * result longer than 200 characters present in history at that moment is shown as
 * `[Old tool result content cleared]` for the rest of that run. The store keeps the full results,
 * so the next user message evaluates the rule again from them.
 */
import { mapPacked } from '../session/packed-array.js';
import type { HistoryMessage } from './history-message.js';
import { isToolResultPart, withReplacedResults } from './history-message.js';

export const MICROCOMPACT_IDLE_MS = 300_000;
export const MICROCOMPACT_MIN_RESULT_CHARS = 200;
export const MICROCOMPACT_CLEARED_TEXT = '[Old tool result content cleared]';

export type MicrocompactDecision =
  | { readonly kind: 'not-idle' }
  | {
      readonly kind: 'cleared';
      /** Tool-call ids to show cleared for every request of this run. */
      readonly clearedToolIds: ReadonlySet<string>;
      readonly idleMs: number;
    };

/**
 * Evaluated once per user message, on the history before the new user message:
 * `previousTimestampMs` is the last history message's time (null when there is none).
 */
export function timeBasedMicrocompact(
  history: readonly HistoryMessage[],
  previousTimestampMs: number | null,
  nowMs: number,
): MicrocompactDecision {
  if (previousTimestampMs === null) return { kind: 'not-idle' };
  const idleMs = nowMs - previousTimestampMs;
  if (idleMs <= MICROCOMPACT_IDLE_MS) return { kind: 'not-idle' };
  const clearedToolIds = new Set<string>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (isToolResultPart(part) && part.result.length > MICROCOMPACT_MIN_RESULT_CHARS) clearedToolIds.add(part.id);
    }
  }
  return { kind: 'cleared', clearedToolIds, idleMs };
}

/**
 * The provider-facing copy with the run's cleared results replaced (unchanged messages by
 * reference). `memo`, one per decision, keeps each message's cleared copy across calls (history
 * messages are immutable), so a run's requests rebuild nothing; the result is the same without it.
 */
export function applyMicrocompact<M extends HistoryMessage>(
  messages: readonly M[],
  decision: MicrocompactDecision,
  memo?: WeakMap<HistoryMessage, HistoryMessage>,
): M[] {
  switch (decision.kind) {
    case 'not-idle':
      return [...messages];
    case 'cleared': {
      const ids = decision.clearedToolIds;
      return mapPacked(messages, (message) => clearedMessage(message, ids, memo));
    }
    default: {
      const unreachable: never = decision;
      return unreachable;
    }
  }
}

/** One message as a `cleared` decision shows it (from `memo` when known): what `applyMicrocompact` maps it to. */
function clearedMessage<M extends HistoryMessage>(
  message: M,
  ids: ReadonlySet<string>,
  memo?: WeakMap<HistoryMessage, HistoryMessage>,
): M {
  if (message.role !== 'assistant') return message;
  const known = memo?.get(message) as M | undefined;
  if (known !== undefined) return known;
  const shown = message.parts.some((part) => isToolResultPart(part) && ids.has(part.id))
    ? withReplacedResults(message, (part) => (ids.has(part.id) ? MICROCOMPACT_CLEARED_TEXT : undefined))
    : message;
  memo?.set(message, shown);
  return shown;
}

/** One message as `applyMicrocompact` shows it under `decision` (the same object, with the same `memo`). */
export function microcompactShownMessage<M extends HistoryMessage>(
  message: M,
  decision: MicrocompactDecision,
  memo?: WeakMap<HistoryMessage, HistoryMessage>,
): M {
  return decision.kind === 'cleared' ? clearedMessage(message, decision.clearedToolIds, memo) : message;
}
