/**
 * The two trims a FreeCode compaction applies, in their newest form: `selectForCompaction` over
 * the memory transcript (engine.md §2.2, with the literal drop-from-front rule and the head
 * carve-out) and `keepLastNUserTurns` over the session store (§2.3, with the headless fallback).
 * The generator carries its own copy so that it does not depend on `src/engine`.
 */

export interface MemoryMessage {
  readonly id: string;
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  readonly timestamp: number;
  readonly tokenCount: number;
}

export interface SelectionConfig {
  readonly preserveRecentTurns: number;
  readonly maxPreserveRecentTokens: number;
  readonly maxPreserveHeadTokens: number;
}

export const NEWEST_SELECTION: SelectionConfig = {
  preserveRecentTurns: 2,
  maxPreserveRecentTokens: 8_000,
  maxPreserveHeadTokens: 2_000,
};

export interface Selection {
  readonly summarize: MemoryMessage[];
  readonly preserve: MemoryMessage[];
  readonly summarizeTokenCount: number;
  readonly preserveTokenCount: number;
}

function sum(messages: readonly MemoryMessage[]): number {
  return messages.reduce((total, m) => total + m.tokenCount, 0);
}

/** §2.2 newest: tail from the N-th last user message, drop from the front above the cap, then the head carve-out. */
export function selectForCompaction(messages: readonly MemoryMessage[], config: SelectionConfig): Selection {
  let preserveStart = Math.max(0, messages.length - config.preserveRecentTurns);
  let users = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      users++;
      if (users === config.preserveRecentTurns) {
        preserveStart = i;
        break;
      }
    }
  }
  const preserve = messages.slice(preserveStart);
  // Literal drop-from-front (§2.2 step 3): the preserved block may start on an assistant message.
  while (sum(preserve) > config.maxPreserveRecentTokens && preserve.length > 1) preserve.shift();
  const first = preserve[0];
  const firstIndex = first === undefined ? messages.length : messages.indexOf(first);
  const summarize = messages.slice(0, firstIndex);
  const headIndex = summarize.findIndex((m) => m.role === 'user');
  const head = summarize[headIndex];
  if (head !== undefined && head.tokenCount <= config.maxPreserveHeadTokens) {
    summarize.splice(headIndex, 1);
    preserve.unshift(head);
  }
  return { summarize, preserve, summarizeTokenCount: sum(summarize), preserveTokenCount: sum(preserve) };
}

/** §2.3 newest: keep from the n-th last user message; headless fallback keeps the first prompt and the last n assistant messages. */
export function keepLastNUserTurns<M extends { readonly role: string }>(messages: readonly M[], n: number): M[] {
  if (n <= 0) return [];
  let users = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      users++;
      if (users === n) return messages.slice(i);
    }
  }
  let assistants = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') {
      assistants++;
      if (assistants === n) {
        const first = messages[0];
        return first !== undefined && first.role === 'user' && i > 0
          ? [first, ...messages.slice(i)]
          : messages.slice(i);
      }
    }
  }
  return [...messages];
}
