/** `pruneHistoryToolResults` (engine.md §5.6): FreeCode's prefix-stable tool-result pruning. */
import { cutTo, emptyObjectArray } from '../session/packed-array.js';
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
 *
 * `tracked`: what the last call with this memo saw and decided (`TrackedCall`), so that a call on
 * a history that extends it works on the new messages only.
 */
export type PrefixStableMemo = { last: Map<HistoryMessage, ReplacedCopy>; tracked?: TrackedCall | undefined };

/**
 * The last call's input and output, with totals after its decisions as sums over its first i
 * messages (index i), and the first message index of every tool-call id in its input.
 *
 * Why a call may start where the input stops matching (`common` messages, by identity): after a
 * call every candidate of its history is recorded in the state (replaced, or sent whole and
 * frozen), so in a later call on the same state (its `revision` unchanged) the unchanged messages
 * hold no fresh candidate, count toward the frozen size exactly what the last call showed of them
 * (the replacement, or the whole result), and are shown as the last call showed them, unless a
 * tool part of theirs shares its id with one of the changed messages (replacements go by id, an
 * empty result included): then the call starts from the first message.
 */
type TrackedCall = {
  readonly state: PruneState;
  revision: number;
  readonly input: HistoryMessage[];
  readonly output: HistoryMessage[];
  readonly candidates: number[];
  readonly charsBefore: number[];
  readonly charsAfter: number[];
  readonly replaced: number[];
  readonly firstIndexOfId: Map<string, number>;
};

/** `message` with the results `replacements` names replaced: the last call's copy when it was the same one. */
function replacedCopy<M extends HistoryMessage>(
  message: M,
  replacements: ReadonlyMap<string, string>,
  memo: PrefixStableMemo | undefined,
  shown: Map<HistoryMessage, ReplacedCopy> | undefined,
): M {
  if (memo === undefined || shown === undefined)
    return withReplacedResults(message, (part) => replacements.get(part.id));
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

/**
 * How many leading messages the call can take as the tracked last call left them (0: all are
 * worked out), with the tracked record trimmed to them. Any tool part of a message after them,
 * in this input or the last one, sharing its id with a part before them makes it 0.
 */
function reusablePrefix(
  tracked: TrackedCall | undefined,
  messages: readonly HistoryMessage[],
  state: PruneState,
): number {
  if (tracked === undefined || tracked.state !== state || tracked.revision !== state.revision) return 0;
  const input = tracked.input;
  const limit = Math.min(input.length, messages.length);
  let common = 0;
  while (common < limit && input[common] === messages[common]) common += 1;
  const firstIndex = tracked.firstIndexOfId;
  // The last input's messages after `common` leave: their ids no longer occur there.
  for (let i = common; i < input.length; i++) {
    for (const part of input[i]?.parts ?? []) {
      if (!isToolResultPart(part)) continue;
      const at = firstIndex.get(part.id);
      if (at === undefined) continue;
      if (at < common) return 0;
      firstIndex.delete(part.id);
    }
  }
  for (let i = common; i < messages.length; i++) {
    for (const part of messages[i]?.parts ?? []) {
      if (!isToolResultPart(part)) continue;
      const at = firstIndex.get(part.id);
      if (at !== undefined && at < common) return 0;
    }
  }
  return common;
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
 * largest first. Updates `state` (sticky across calls); returns the provider-facing copy. With a
 * memo, a history that extends the last call's is worked out from where it changed (`TrackedCall`;
 * the same outcome, property-tested against the call without a memo).
 */
export function pruneHistoryToolResults<M extends HistoryMessage>(
  messages: readonly M[],
  state: PruneState,
  budgetChars: number,
  memo?: PrefixStableMemo,
): PruneOutcome<M> {
  const common = memo === undefined ? 0 : reusablePrefix(memo.tracked, messages, state);
  const kept = common > 0 ? memo?.tracked : undefined;

  let lastAssistantIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') {
      lastAssistantIndex = i;
      break;
    }
  }

  // Candidates of the messages after the kept ones (all of them without a kept prefix). The kept
  // ones hold none that is fresh and share no id with these, so they matter only by their totals.
  // A send mostly adds a message or two: this call's lists, sets and maps are made only when
  // something needs them (each one per send was most of the replay's garbage here).
  const candidates: Candidate[] = [];
  let protectedIds: Set<string> | undefined;
  for (let messageIndex = common; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex];
    if (message === undefined || message.role !== 'assistant') continue;
    for (const part of message.parts) {
      // Empty results are not candidates (FreeCode tests `!part.result`).
      if (!isToolResultPart(part) || part.result === '') continue;
      candidates.push({ id: part.id, sizeChars: part.result.length, part });
      if (messageIndex === lastAssistantIndex) (protectedIds ??= new Set()).add(part.id);
    }
  }
  const keptCandidates = kept?.candidates[common] ?? 0;
  const keptCharsBefore = kept?.charsBefore[common] ?? 0;
  const keptCharsAfter = kept?.charsAfter[common] ?? 0;
  const keptReplaced = kept?.replaced[common] ?? 0;

  const { mustReapply, frozen, fresh } = state.partition(candidates);
  let frozenSizeChars = keptCharsAfter;
  for (const c of frozen) frozenSizeChars += c.sizeChars;
  for (const c of mustReapply) frozenSizeChars += c.replacement.length;
  let selectable = fresh;
  let protectedSizeChars = 0;
  if (protectedIds !== undefined) {
    selectable = [];
    for (const c of fresh) {
      if (protectedIds.has(c.id)) protectedSizeChars += c.sizeChars;
      else selectable.push(c);
    }
  }
  const selected = selectFreshToReplace(selectable, frozenSizeChars + protectedSizeChars, budgetChars);

  const replacing = mustReapply.length + selected.length === 0 ? undefined : new Map<string, string>();
  const replacements: ReadonlyMap<string, string> = replacing ?? NO_REPLACEMENTS;
  for (const c of mustReapply) replacing?.set(c.id, c.replacement);
  const newlyReplaced: ReplacedToolResult[] = [];
  for (const c of selected) {
    const replacement = prunedToolResultText(c.id, c.sizeChars);
    replacing?.set(c.id, replacement);
    state.recordReplaced(c.id, replacement);
    newlyReplaced.push({ id: c.id, name: c.part.name, args: c.part.args, sizeChars: c.sizeChars });
  }
  // Everything going out whole this send is frozen from now on.
  for (const c of candidates) {
    if (!replacements.has(c.id)) state.recordSeen(c.id);
  }

  let charsAfter = keptCharsAfter;
  let replacedCount = keptReplaced;
  let charsBefore = keptCharsBefore;
  for (const c of candidates) {
    const replacement = replacements.get(c.id);
    charsAfter += replacement === undefined ? c.sizeChars : replacement.length;
    charsBefore += c.sizeChars;
    if (replacement !== undefined) replacedCount += 1;
  }
  const stats = {
    candidateCount: keptCandidates + candidates.length,
    replacedCount,
    newlyReplacedCount: newlyReplaced.length,
    charsBefore,
    charsAfter,
  };
  if (memo === undefined) {
    const out: M[] = [];
    for (const message of messages) {
      if (message === undefined) throw new Error('invariant: a history has no holes');
      out.push(shownMessage(message, replacements, undefined, undefined));
    }
    return { messages: out, stats, newlyReplaced };
  }
  // The kept messages' copies stay in `memo.last`; the last call's later messages' leave it.
  let shown: Map<HistoryMessage, ReplacedCopy>;
  if (kept !== undefined) {
    shown = memo.last;
    for (let i = common; i < kept.input.length; i++) {
      const left = kept.input[i];
      if (left !== undefined) shown.delete(left);
    }
  } else {
    shown = new Map();
  }
  const tracked = kept ?? newTrackedCall(state);
  // The tracked output is this call's output: the caller gets one copy of it, made at its length.
  track(tracked, common, messages, replacements, memo, shown);
  memo.last = shown;
  memo.tracked = tracked;
  return { messages: tracked.output.slice() as M[], stats, newlyReplaced };
}

/** No result replaced: one empty map for every call that needs none. */
const NO_REPLACEMENTS: ReadonlyMap<string, string> = new Map();

/** How `message` goes out under `replacements`: itself, or its replaced copy. */
function shownMessage<M extends HistoryMessage>(
  message: M,
  replacements: ReadonlyMap<string, string>,
  memo: PrefixStableMemo | undefined,
  shown: Map<HistoryMessage, ReplacedCopy> | undefined,
): M {
  return replacements.size > 0 &&
    message.role === 'assistant' &&
    message.parts.some((part) => isToolResultPart(part) && replacements.has(part.id))
    ? replacedCopy(message, replacements, memo, shown)
    : message;
}

function newTrackedCall(state: PruneState): TrackedCall {
  return {
    state,
    revision: state.revision,
    input: emptyObjectArray(),
    output: emptyObjectArray(),
    candidates: [0],
    charsBefore: [0],
    charsAfter: [0],
    replaced: [0],
    firstIndexOfId: new Map(),
  };
}

/**
 * The tracked record after a call that kept `common` messages and decided `replacements` for the
 * rest: its output is the call's (the rest shown through `shownMessage`).
 */
function track(
  tracked: TrackedCall,
  common: number,
  messages: readonly HistoryMessage[],
  replacements: ReadonlyMap<string, string>,
  memo: PrefixStableMemo,
  shownCopies: Map<HistoryMessage, ReplacedCopy>,
): void {
  tracked.revision = tracked.state.revision;
  cutTo(tracked.input, common);
  cutTo(tracked.output, common);
  // Each list cut on its own: a list of the lists would be an allocation on every send.
  cutTo(tracked.candidates, common + 1);
  cutTo(tracked.charsBefore, common + 1);
  cutTo(tracked.charsAfter, common + 1);
  cutTo(tracked.replaced, common + 1);
  let candidates = tracked.candidates[common] ?? 0;
  let charsBefore = tracked.charsBefore[common] ?? 0;
  let charsAfter = tracked.charsAfter[common] ?? 0;
  let replaced = tracked.replaced[common] ?? 0;
  for (let i = common; i < messages.length; i++) {
    const message = messages[i];
    if (message === undefined) throw new Error('invariant: a history has no holes');
    const shown = shownMessage(message, replacements, memo, shownCopies);
    for (const part of message.parts) {
      if (!isToolResultPart(part)) continue;
      if (!tracked.firstIndexOfId.has(part.id)) tracked.firstIndexOfId.set(part.id, i);
      if (message.role !== 'assistant' || part.result === '') continue;
      const replacement = replacements.get(part.id);
      candidates += 1;
      charsBefore += part.result.length;
      charsAfter += replacement === undefined ? part.result.length : replacement.length;
      if (replacement !== undefined) replaced += 1;
    }
    tracked.input.push(message);
    tracked.output.push(shown);
    tracked.candidates.push(candidates);
    tracked.charsBefore.push(charsBefore);
    tracked.charsAfter.push(charsAfter);
    tracked.replaced.push(replaced);
  }
}
