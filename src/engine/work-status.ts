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
 * The bucket of one message's content, or null. A tool-transcript `-> failed:` line makes its
 * turn blocked through the word "failed", unless the message also holds a negation (§3.2).
 */
export function classifyWorkStatus(content: string): WorkStatus | null {
  const lower = content.toLowerCase();
  if (BLOCKED_WORDS.test(lower) && !NEGATION.test(lower)) return 'blocked';
  if (IN_PROGRESS_SUBSTRINGS.some((needle) => lower.includes(needle))) return 'in-progress';
  if (DONE_SUBSTRINGS.some((needle) => lower.includes(needle))) return 'done';
  return null;
}
