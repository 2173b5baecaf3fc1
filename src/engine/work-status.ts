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
 * The same tests on the content as it is, ignoring case. For a content of Latin-1 characters
 * alone (U+0000–U+00FF) they are the tests above on its lower-cased copy: lower-casing maps A–Z
 * to a–z and Latin-1 letters to Latin-1 letters, which match no letter of the patterns and are no
 * word characters either way, and `/i` (without `u`) folds no character beyond ASCII onto ASCII.
 * Beyond Latin-1 they may differ (U+212A KELVIN SIGN lower-cases to "k", U+0130 to "i" and a
 * combining dot): such a content is lower-cased.
 */
const BLOCKED_WORDS_ANY_CASE = /\b(?:blocked|waiting|error|errors|failed|failing)\b/i;
const NEGATION_ANY_CASE = /\b(?:no|without|zero|resolved|fixed)\s+(?:errors?|blockers?|issues?)\b/i;
const IN_PROGRESS_ANY_CASE = /working on|in progress|currently/i;
const DONE_ANY_CASE = /completed|done|finished/i;
// eslint-disable-next-line no-control-regex -- the range starts at U+0000: every Latin-1 character
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * The bucket of one message's content, or null. A tool-transcript `-> failed:` line makes its
 * turn blocked through the word "failed", unless the message also holds a negation (§3.2).
 */
export function classifyWorkStatus(content: string): WorkStatus | null {
  // No lower-cased copy of a Latin-1 content (most are): the same answer (see above).
  if (!BEYOND_LATIN1.test(content)) {
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
