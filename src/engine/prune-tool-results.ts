/** `pruneHistoryToolResults` (engine.md §5.6): FreeCode's prefix-stable tool-result pruning. */
import type { HistoryMessage, ToolResultPart } from './history-message.js';
import { isToolResultPart, withReplacedResults } from './history-message.js';
import type { PruneOutcome, ReplacedToolResult } from './prune-outcome.js';
import type { PruneState } from './prune-state.js';
import { prunedToolResultText, selectFreshToReplace } from './prune-state.js';

type ReplacedCopy = { readonly replacements: readonly (string | undefined)[]; readonly message: HistoryMessage };

/**
 * Reuse from one call to the next (`PruneMemo.prefixStable`): the replaced copies the last call
 * showed, by message object, with the replacement of each of their parts. Decisions are sticky and
 * a re-applied replacement is the stored string, so a message keeps one replaced copy from send
 * to send instead of a new one per send (the same content either way). Only the last call's are
 * kept: as many as the history shows, not every copy a long replay ever made.
 */
export type PrefixStableMemo = { last: Map<HistoryMessage, ReplacedCopy> };

/** `message` with the results `replacements` names replaced: the last call's copy when it was the same one. */
function replacedCopy<M extends HistoryMessage>(
  message: M,
  replacements: ReadonlyMap<string, string>,
  memo: PrefixStableMemo | undefined,
  shown: Map<HistoryMessage, ReplacedCopy>,
): M {
  if (memo === undefined) return withReplacedResults(message, (part) => replacements.get(part.id));
  const wanted = message.parts.map((part) => (isToolResultPart(part) ? replacements.get(part.id) : undefined));
  let copy = memo.last.get(message);
  if (
    copy === undefined ||
    copy.replacements.length !== wanted.length ||
    !copy.replacements.every((replacement, i) => replacement === wanted[i])
  )
    copy = { replacements: wanted, message: withReplacedResults(message, (part) => replacements.get(part.id)) };
  shown.set(message, copy);
  return copy.message as M;
}

interface Candidate {
  readonly id: string;
  readonly sizeChars: number;
  readonly part: ToolResultPart;
}

/**
 * Shrinks the history's tool results to the history-wide `budgetChars` without changing anything
 * already sent: previous replacements are re-applied, results sent whole stay whole, results in
 * the last assistant message are never replaced now (but freeze), and fresh results are replaced
 * largest first. Updates `state` (sticky across calls); returns the provider-facing copy.
 */
export function pruneHistoryToolResults<M extends HistoryMessage>(
  messages: readonly M[],
  state: PruneState,
  budgetChars: number,
  memo?: PrefixStableMemo,
): PruneOutcome<M> {
  let lastAssistantIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') {
      lastAssistantIndex = i;
      break;
    }
  }

  const candidates: Candidate[] = [];
  const protectedIds = new Set<string>();
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    for (const part of message.parts) {
      // Empty results are not candidates (FreeCode tests `!part.result`).
      if (!isToolResultPart(part) || part.result === '') continue;
      candidates.push({ id: part.id, sizeChars: part.result.length, part });
      if (messageIndex === lastAssistantIndex) protectedIds.add(part.id);
    }
  });

  const { mustReapply, frozen, fresh } = state.partition(candidates);
  const frozenSizeChars =
    frozen.reduce((sum, c) => sum + c.sizeChars, 0) + mustReapply.reduce((sum, c) => sum + c.replacement.length, 0);
  const selectable = fresh.filter((c) => !protectedIds.has(c.id));
  const protectedSizeChars = fresh.filter((c) => protectedIds.has(c.id)).reduce((sum, c) => sum + c.sizeChars, 0);
  const selected = selectFreshToReplace(selectable, frozenSizeChars + protectedSizeChars, budgetChars);

  const replacements = new Map<string, string>();
  for (const c of mustReapply) replacements.set(c.id, c.replacement);
  const newlyReplaced: ReplacedToolResult[] = [];
  for (const c of selected) {
    const replacement = prunedToolResultText(c.id, c.sizeChars);
    replacements.set(c.id, replacement);
    state.recordReplaced(c.id, replacement);
    newlyReplaced.push({ id: c.id, name: c.part.name, args: c.part.args, sizeChars: c.sizeChars });
  }
  // Everything going out whole this send is frozen from now on.
  for (const c of candidates) {
    if (!replacements.has(c.id)) state.recordSeen(c.id);
  }

  let charsAfter = 0;
  let replacedCount = 0;
  for (const c of candidates) {
    const replacement = replacements.get(c.id);
    charsAfter += replacement === undefined ? c.sizeChars : replacement.length;
    if (replacement !== undefined) replacedCount += 1;
  }
  const shown = new Map<HistoryMessage, ReplacedCopy>();
  const out =
    replacements.size === 0
      ? [...messages]
      : messages.map((message) =>
          message.role === 'assistant' &&
          message.parts.some((part) => isToolResultPart(part) && replacements.has(part.id))
            ? replacedCopy(message, replacements, memo, shown)
            : message,
        );
  if (memo !== undefined) memo.last = shown;
  return {
    messages: out,
    stats: {
      candidateCount: candidates.length,
      replacedCount,
      newlyReplacedCount: newlyReplaced.length,
      charsBefore: candidates.reduce((sum, c) => sum + c.sizeChars, 0),
      charsAfter,
    },
    newlyReplaced,
  };
}
