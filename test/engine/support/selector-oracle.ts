/** Independent re-statements of §2.2 step 1 used by the selector properties (not a test file). */
import type { SelectorParams } from '../../../src/engine/index.js';
import type { Msg } from './messages.js';

export function userCount(messages: readonly Msg[]): number {
  return messages.filter((m) => m.role === 'user').length;
}

/** Step 1: index of the N-th user message from the end, else the version's fallback. */
export function boundaryIndex(messages: readonly Msg[], params: SelectorParams): number {
  const userIndexes = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  const n = params.preserveRecentTurns;
  if (n > 0 && userIndexes.length >= n) return userIndexes[userIndexes.length - n] ?? 0;
  return params.version === 'newest' ? Math.max(0, messages.length - n) : messages.length;
}

export function tokens(messages: readonly Msg[]): number {
  return messages.reduce((sum, m) => sum + m.tokenCount, 0);
}

/** The Aug early return: nothing summarized, everything kept, caps not applied. */
export function augEarlyReturn(messages: readonly Msg[], params: SelectorParams): boolean {
  return params.version === 'aug' && userCount(messages) <= params.preserveRecentTurns;
}
