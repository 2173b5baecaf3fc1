/**
 * The heuristic summarizer's status buckets (engine.md §3.2 "Work status"): one bucket per
 * message, blocked before in progress before done.
 */

export type WorkStatus = 'blocked' | 'in-progress' | 'done';

/** Whole words that mark a message blocked (matched on the lower-cased content). */
const BLOCKED_WORDS = /\b(?:blocked|waiting|error|errors|failed|failing)\b/;
/** A negation anywhere ("no errors", "fixed issues") suppresses the whole message's blocked bucket. */
const NEGATION = /\b(?:no|without|zero|resolved|fixed)\s+(?:errors?|blockers?|issues?)\b/;
const IN_PROGRESS_SUBSTRINGS = ['working on', 'in progress', 'currently'] as const;
/** Plain substrings, so "abandoned" counts as done (§3.2). */
const DONE_SUBSTRINGS = ['completed', 'done', 'finished'] as const;

/**
 * The same tests on the content as it is, ignoring case. They are the tests above on its
 * lower-cased copy unless the content holds U+0130 (lower-cased to "i" and a combining dot) or
 * U+212A KELVIN SIGN (to "k"): lower-casing maps A–Z to a–z, leaves the other ASCII characters
 * and white space as they are, and turns every other character into characters that are neither
 * ASCII nor white space (checked over every code point in the tests), which match no letter of the
 * patterns and are no word characters either way (a lower case longer than its character stays
 * non-word); and `/i` (without `u`) folds no character beyond ASCII onto ASCII. Only such a content
 * is lower-cased: before, any content beyond Latin-1 was, which is most tool turns (a clipped
 * transcript line ends with `…`).
 */
const BLOCKED_WORDS_ANY_CASE = /\b(?:blocked|waiting|error|errors|failed|failing)\b/i;
const NEGATION_ANY_CASE = /\b(?:no|without|zero|resolved|fixed)\s+(?:errors?|blockers?|issues?)\b/i;
const IN_PROGRESS_ANY_CASE = /working on|in progress|currently/i;
const DONE_ANY_CASE = /completed|done|finished/i;
/** The characters whose lower case holds an ASCII character. */
export const LOWER_CASES_TO_ASCII = /[\u0130\u212a]/;

/**
 * The bucket of one message's content, or null. A tool-transcript `-> failed:` line makes its
 * turn blocked through the word "failed", unless the message also holds a negation (§3.2).
 */
export function classifyWorkStatus(content: string): WorkStatus | null {
  // No lower-cased copy (see above): the same answer.
  if (!LOWER_CASES_TO_ASCII.test(content)) {
    if (BLOCKED_WORDS_ANY_CASE.test(content) && !NEGATION_ANY_CASE.test(content)) return 'blocked';
    if (IN_PROGRESS_ANY_CASE.test(content)) return 'in-progress';
    if (DONE_ANY_CASE.test(content)) return 'done';
    return null;
  }
  return classifyLowerCased(content);
}

/** `classifyWorkStatus` as §3.2 states it: the patterns on the lower-cased content. */
export function classifyLowerCased(content: string): WorkStatus | null {
  const lower = content.toLowerCase();
  if (BLOCKED_WORDS.test(lower) && !NEGATION.test(lower)) return 'blocked';
  if (IN_PROGRESS_SUBSTRINGS.some((needle) => lower.includes(needle))) return 'in-progress';
  if (DONE_SUBSTRINGS.some((needle) => lower.includes(needle))) return 'done';
  return null;
}
