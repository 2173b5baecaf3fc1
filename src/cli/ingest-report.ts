/**
 * How ingest issues reach the user: one summary line on stderr by default, every issue with
 * `--verbose`, and with `--strict` any issue that is not a note is fatal (exit 2, nothing printed
 * on stdout). Notes (`isIngestNote`) say what was counted differently and why; they are listed and
 * counted, never fatal.
 */
import { isIngestNote } from '../session/ingest-note.js';
import type { IngestIssue, IssueEffect } from '../session/model.js';
import { CachecostError } from '../session/errors.js';
import type { GlobalArgs } from './command.js';
import type { CliIo } from './io.js';
import { terminalSafe } from '../format/terminal-safe.js';

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** `file:line: reason` (line 0 means the whole file, so it is left out), one terminal-safe line: paths and reasons quote logs. */
export function formatIssue(issue: IngestIssue): string {
  const file = terminalSafe(issue.file);
  const reason = terminalSafe(issue.reason);
  return issue.line > 0 ? `${file}:${issue.line}: ${reason}` : `${file}: ${reason}`;
}

/** The same issue reported twice (one file read for two purposes) is one issue. */
function distinct(issues: readonly IngestIssue[]): IngestIssue[] {
  const seen = new Set<string>();
  const out: IngestIssue[] = [];
  for (const issue of issues) {
    const key = `${issue.file}\u0000${issue.line}\u0000${issue.effect ?? ''}\u0000${issue.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

/** Issues that are problems with the input (not notes), each counted once. */
export function problemIssues(issues: readonly IngestIssue[]): IngestIssue[] {
  return distinct(issues).filter((issue) => !isIngestNote(issue));
}

/**
 * What the issues did, counted by what happened to the input: "1 line skipped, 2 lines repaired,
 * 1 file with a whole-file issue in 3 files". Lines are distinct `file:line` pairs (two reasons for
 * one line are one line; an issue standing for several lines counts them all); a line-0 issue is
 * about a whole file. Notes are counted apart (`noteCounts`).
 */
export function issueCounts(issues: readonly IngestIssue[]): string {
  const problems = problemIssues(issues);
  const skipped = new Set<string>();
  const repaired = new Set<string>();
  const wholeFiles = new Set<string>();
  let aggregated = 0;
  for (const issue of problems) {
    if (issue.line === 0) wholeFiles.add(issue.file);
    else (issue.effect === 'repaired' ? repaired : skipped).add(`${issue.file}\u0000${issue.line}`);
    // One issue for the lines of an unknown record type: the others it stands for were skipped too.
    if (issue.line > 0 && issue.effect !== 'repaired') aggregated += (issue.lines ?? 1) - 1;
  }
  // A line both skipped and repaired (two reasons) was skipped.
  for (const key of skipped) repaired.delete(key);
  const parts: string[] = [];
  const skippedLines = skipped.size + aggregated;
  if (skippedLines > 0) parts.push(`${plural(skippedLines, 'line')} skipped`);
  if (repaired.size > 0) parts.push(`${plural(repaired.size, 'line')} repaired`);
  if (wholeFiles.size > 0) parts.push(`${plural(wholeFiles.size, 'file')} with a whole-file issue`);
  const files = new Set(problems.map((issue) => issue.file)).size;
  return parts.length === 0 ? 'no ingest issues' : `${parts.join(', ')} in ${plural(files, 'file')}`;
}

/**
 * Each kind of note as the summary line words it, in the line's order. Every note effect has one
 * (the type fails when a new effect has none).
 */
const NOTE_WORDING: Readonly<Record<Exclude<IssueEffect, 'repaired'>, (count: number) => string>> = {
  'usage-not-reported': (n) => `${plural(n, 'request')} without reported usage (counted apart, not priced)`,
  'counted-elsewhere': (n) =>
    `${plural(n, 'file')} holding responses another session counted (resumed copies, not counted twice)`,
  'fork-replay': (n) => `${plural(n, 'forked rollout')} whose copy of the parent's history was not counted again`,
  'unbilled-web-search': (n) =>
    `${plural(n, 'response')} with web searches, billed per search and left out of the bill`,
};

/** The notes, by kind: "981 requests without reported usage (counted apart, not priced); 2 files holding …". */
export function noteCounts(issues: readonly IngestIssue[]): string | null {
  const counts = new Map<string, number>();
  for (const note of distinct(issues).filter(isIngestNote))
    if (note.effect !== undefined) counts.set(note.effect, (counts.get(note.effect) ?? 0) + 1);
  const parts: string[] = [];
  for (const [effect, words] of Object.entries(NOTE_WORDING)) {
    const count = counts.get(effect) ?? 0;
    if (count > 0) parts.push(words(count));
  }
  return parts.length === 0 ? null : parts.join('; ');
}

/**
 * Lists issues and notes on stderr when `--verbose`; throws `STRICT_INGEST` when `--strict` and
 * there are problem issues. Call before printing results, so that `--strict` prints none.
 */
export function checkIssues(issues: readonly IngestIssue[], global: GlobalArgs, io: CliIo): void {
  if (global.verbose)
    for (const issue of distinct(issues)) io.stderr(`${isIngestNote(issue) ? 'note: ' : ''}${formatIssue(issue)}\n`);
  if (global.strict && problemIssues(issues).length > 0) {
    throw new CachecostError(
      'STRICT_INGEST',
      `${issueCounts(issues)} and --strict is set${global.verbose ? '' : '; --verbose lists them'}`,
    );
  }
}

/** Session ids a notice names without `--verbose` (a fleet's logs can hold thousands). */
const LISTED_SESSIONS = 5;

/**
 * The line on stderr for the sessions a command could not replay for want of per-request data
 * (`done`: what it did to the others, "replayed" or "examined"); null when there are none. Their
 * ids in sorted order (the same line over logs and over their exports), every one with `--verbose`,
 * else the first few and how many more.
 */
export function skippedSessionsNotice(ids: readonly string[], done: string, global: GlobalArgs): string | null {
  if (ids.length === 0) return null;
  const sorted = [...ids].sort();
  const listed =
    global.verbose || sorted.length <= LISTED_SESSIONS + 1
      ? sorted.join(', ')
      : `${sorted.slice(0, LISTED_SESSIONS).join(', ')} and ${sorted.length - LISTED_SESSIONS} more (--verbose lists them)`;
  return `cachecost: ${ids.length} session(s) without per-request data were not ${done}: ${terminalSafe(listed)}\n`;
}

/** The summary line(s) after the results: problems, then notes (nothing when there are neither). */
export function reportIssueSummary(issues: readonly IngestIssue[], global: GlobalArgs, io: CliIo): void {
  const tail = global.verbose ? 'listed above' : '--verbose lists them';
  if (problemIssues(issues).length > 0) io.stderr(`cachecost: ${issueCounts(issues)}; ${tail}\n`);
  const notes = noteCounts(issues);
  if (notes !== null) io.stderr(`cachecost: note: ${notes}; ${tail}\n`);
}
