/**
 * `selectForCompaction` (engine.md §2.2): which memory messages a compaction summarizes and which
 * it keeps verbatim, for both FreeCode versions and both selectors.
 */
import type { EngineParams } from './params.js';

/** What the selector reads of a message: its role and its estimated size. */
export interface SelectableMessage {
  readonly role: string;
  readonly tokenCount: number;
}

export type SelectorParams = Pick<
  EngineParams,
  'version' | 'selector' | 'preserveRecentTurns' | 'maxPreserveRecentTokens' | 'maxPreserveHeadTokens'
>;

export interface SelectionResult<M> {
  readonly summarize: M[];
  /** The carved-out head (if any) followed by the contiguous tail `messages[tailStartIndex..]`. */
  readonly preserve: M[];
  readonly summarizeTokenCount: number;
  readonly preserveTokenCount: number;
  /** Index of the first message of the preserved tail (= messages.length when the tail is empty). */
  readonly tailStartIndex: number;
  /** Index of the head carved out into `preserve` (§2.2 step 5), or null. */
  readonly headIndex: number | null;
}

function sumTokens(messages: readonly SelectableMessage[]): number {
  let tokens = 0;
  for (const message of messages) tokens += message.tokenCount;
  return tokens;
}

function nextUserIndex(messages: readonly SelectableMessage[], from: number): number | null {
  for (let i = from; i < messages.length; i++) {
    if (messages[i]?.role === 'user') return i;
  }
  return null;
}

/**
 * Step 1 (§2.2): the second-to-last user message (the N-th from the end). When there are fewer
 * user messages, newest falls back to the last N messages; the Aug version to an empty tail (it
 * never gets there: its early return fires first).
 */
function tailBoundary(messages: readonly SelectableMessage[], params: SelectorParams): number {
  const turns = params.preserveRecentTurns;
  let start = params.version === 'newest' ? Math.max(0, messages.length - turns) : messages.length;
  let usersSeen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    usersSeen += 1;
    if (usersSeen === turns) {
      start = i;
      break;
    }
  }
  return start;
}

/** Step 3 for the `freecode` selector: FreeCode's literal drop-from-front rule. */
function dropFromFront(messages: readonly SelectableMessage[], start: number, capTokens: number): number {
  let tail = start;
  let tailTokens = sumTokens(messages.slice(start));
  // Literal §2.2 step 3: the preserved block may start on an assistant message afterwards.
  while (tailTokens > capTokens && messages.length - tail > 1) {
    tailTokens -= messages[tail]?.tokenCount ?? 0;
    tail += 1;
  }
  return tail;
}

/**
 * Steps 1 and 3 for the `strict` selector (§2.2 note): the tail always starts at a user message
 * or is empty. A fallback tail starting mid-turn advances to the next user message (the dangling
 * replies are summarized); over the cap, whole leading turns are dropped, and the last user turn
 * is kept even above the cap.
 */
function dropWholeTurns(messages: readonly SelectableMessage[], start: number, capTokens: number): number {
  const startsMidTurn = start < messages.length && messages[start]?.role !== 'user';
  let tail = startsMidTurn ? (nextUserIndex(messages, start) ?? messages.length) : start;
  let tailTokens = sumTokens(messages.slice(tail));
  while (tailTokens > capTokens) {
    const next = nextUserIndex(messages, tail + 1);
    if (next === null) break;
    tailTokens -= sumTokens(messages.slice(tail, next));
    tail = next;
  }
  return tail;
}

/**
 * Splits the memory transcript into the messages to summarize and the messages to keep (§2.2):
 * the last `preserveRecentTurns` user turns, trimmed to `maxPreserveRecentTokens` by the chosen
 * selector, plus (newest) the first user message when it fits `maxPreserveHeadTokens`. The Aug
 * version summarizes nothing while there are at most `preserveRecentTurns` user messages.
 */
export function selectForCompaction<M extends SelectableMessage>(
  messages: readonly M[],
  params: SelectorParams,
): SelectionResult<M> {
  if (params.version === 'aug') {
    const userCount = messages.filter((message) => message.role === 'user').length;
    if (userCount <= params.preserveRecentTurns) {
      return {
        summarize: [],
        preserve: [...messages],
        summarizeTokenCount: 0,
        preserveTokenCount: sumTokens(messages),
        tailStartIndex: 0,
        headIndex: null,
      };
    }
  }

  const start = tailBoundary(messages, params);
  let tailStartIndex: number;
  switch (params.selector) {
    case 'freecode':
      tailStartIndex = dropFromFront(messages, start, params.maxPreserveRecentTokens);
      break;
    case 'strict':
      tailStartIndex = dropWholeTurns(messages, start, params.maxPreserveRecentTokens);
      break;
    default: {
      const unreachable: never = params.selector;
      return unreachable;
    }
  }

  // Step 5, newest only: the head carve-out runs after the cap, so trimming never evicts it.
  let headIndex: number | null = null;
  if (params.version === 'newest') {
    const firstUser = nextUserIndex(messages, 0);
    const head = firstUser === null ? undefined : messages[firstUser];
    const inSummarized = firstUser !== null && firstUser < tailStartIndex;
    if (inSummarized && head !== undefined && head.tokenCount <= params.maxPreserveHeadTokens) headIndex = firstUser;
  }

  const summarize = messages.slice(0, tailStartIndex).filter((_, i) => i !== headIndex);
  const tail = messages.slice(tailStartIndex);
  const head = headIndex === null ? undefined : messages[headIndex];
  const preserve = head === undefined ? tail : [head, ...tail];
  return {
    summarize,
    preserve,
    summarizeTokenCount: sumTokens(summarize),
    preserveTokenCount: sumTokens(preserve),
    tailStartIndex,
    headIndex,
  };
}
