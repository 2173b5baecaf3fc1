/** One entry point for the pruning policy a scenario selects (engine.md §5.6). */
import type { HistoryMessage } from './history-message.js';
import { isToolResultPart } from './history-message.js';
import type { PruningPolicy } from './params.js';
import type { PruneOutcome } from './prune-outcome.js';
import type { PruneState } from './prune-state.js';
import type { PrefixStableMemo } from './prune-tool-results.js';
import { pruneHistoryToolResults } from './prune-tool-results.js';
import type { SlidingMemo } from './sliding-prune.js';
import { slidingLegacyTruncate } from './sliding-prune.js';

/** Work a caller pruning the same growing history on every request lets the policies reuse (results unchanged). */
export type PruneMemo = { readonly sliding: SlidingMemo; readonly prefixStable: PrefixStableMemo };

/** A fresh memo: one per history (one per replay). */
export function newPruneMemo(): PruneMemo {
  return { sliding: new WeakMap(), prefixStable: { last: new Map() } };
}

/**
 * The provider-facing copy of `messages` under `policy`: prefix-stable (sticky in `state`,
 * history-wide `budgetChars`), sliding-legacy (stateless), or none (unchanged). `memo` only saves
 * work across calls on the same history.
 */
export function applyPruningPolicy<M extends HistoryMessage>(
  messages: readonly M[],
  policy: PruningPolicy,
  state: PruneState,
  budgetChars: number,
  memo?: PruneMemo,
): PruneOutcome<M> {
  switch (policy.kind) {
    case 'prefix-stable':
      return pruneHistoryToolResults(messages, state, budgetChars, memo?.prefixStable);
    case 'sliding-legacy':
      return slidingLegacyTruncate(messages, policy.keepRecentResponses, policy.capChars, memo?.sliding);
    case 'none': {
      let candidateCount = 0;
      let chars = 0;
      for (const message of messages) {
        if (message.role !== 'assistant') continue;
        for (const part of message.parts) {
          if (!isToolResultPart(part) || part.result === '') continue;
          candidateCount += 1;
          chars += part.result.length;
        }
      }
      return {
        messages: [...messages],
        stats: { candidateCount, replacedCount: 0, newlyReplacedCount: 0, charsBefore: chars, charsAfter: chars },
        newlyReplaced: [],
      };
    }
    default: {
      const unreachable: never = policy;
      return unreachable;
    }
  }
}
