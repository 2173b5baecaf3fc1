/** The on-disk trim `keepLastNUserTurns` (engine.md §2.3), generic over anything with a role. */
import type { EngineVersion } from './params.js';

/**
 * The suffix of the stored history starting at its n-th user message from the end (only the role
 * is checked, so synthetic user messages count). Newest: with fewer user messages, keep the
 * first message (if it is a user message and not already kept) plus the suffix from the n-th
 * assistant message from the end, which may cut inside one response (§2.3 edge cases); else
 * everything. Aug: fewer user messages keep everything. Returns the same objects.
 */
export function keepLastNUserTurns<M extends { readonly role: string }>(
  messages: readonly M[],
  n: number,
  version: EngineVersion = 'newest',
): M[] {
  if (n <= 0) return [];
  let usersSeen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    usersSeen += 1;
    if (usersSeen === n) return messages.slice(i);
  }
  if (version === 'newest') {
    let assistantsSeen = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]?.role !== 'assistant') continue;
      assistantsSeen += 1;
      if (assistantsSeen === n) {
        const first = messages[0];
        return first !== undefined && first.role === 'user' && i > 0
          ? [first, ...messages.slice(i)]
          : messages.slice(i);
      }
    }
  }
  return [...messages];
}
