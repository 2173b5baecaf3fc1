/**
 * The old sliding 1,000-character truncation (RC4, engine.md §5.6 "History"), selectable to
 * reproduce the cost of logs written before 2026-08-05. The rule is fixed for the whole project
 * (the dataset generator applies the same one): on every request, each tool result of a provider
 * response other than the `keepRecentResponses` most recent ones is shown as
 * `result.slice(0, capChars) + "\n[truncated]"` when longer than `capChars`. Not sticky: it is
 * recomputed per request, which is why it invalidated the cache every turn.
 */
import type { HistoryMessage } from './history-message.js';
import { isToolResultPart, withReplacedResults } from './history-message.js';
import type { PruneOutcome, ReplacedToolResult } from './prune-outcome.js';

export const SLIDING_TRUNCATION_MARKER = '\n[truncated]';

/**
 * The response an assistant message belongs to: its `responseId` when set (FreeCode stores one
 * response as several messages), else the message alone.
 */
function responseKey(message: HistoryMessage, index: number): string {
  return message.responseId === undefined ? `message#${index}` : `response:${message.responseId}`;
}

/** Applies the sliding rule to a provider-facing history (pure: no state). */
export function slidingLegacyTruncate<M extends HistoryMessage>(
  messages: readonly M[],
  keepRecentResponses: number,
  capChars: number,
): PruneOutcome<M> {
  const recent = new Set<string>();
  for (let i = messages.length - 1; i >= 0 && recent.size < keepRecentResponses; i--) {
    const message = messages[i];
    if (message?.role === 'assistant') recent.add(responseKey(message, i));
  }

  let candidateCount = 0;
  let charsBefore = 0;
  let charsAfter = 0;
  const truncated: ReplacedToolResult[] = [];
  const out = messages.map((message, index) => {
    if (message.role !== 'assistant') return message;
    const old = !recent.has(responseKey(message, index));
    let changed = false;
    for (const part of message.parts) {
      if (!isToolResultPart(part) || part.result === '') continue;
      candidateCount += 1;
      charsBefore += part.result.length;
      if (old && part.result.length > capChars) {
        changed = true;
        truncated.push({ id: part.id, name: part.name, args: part.args, sizeChars: part.result.length });
        charsAfter += capChars + SLIDING_TRUNCATION_MARKER.length;
      } else {
        charsAfter += part.result.length;
      }
    }
    if (!changed) return message;
    return withReplacedResults(message, (part) =>
      part.result.length > capChars ? `${part.result.slice(0, capChars)}${SLIDING_TRUNCATION_MARKER}` : undefined,
    );
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
