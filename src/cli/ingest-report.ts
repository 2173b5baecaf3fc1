/**
 * How ingest issues reach the user: one summary line on stderr by default, every issue with
 * `--verbose`, and with `--strict` any issue is fatal (exit 2, nothing printed on stdout).
 */
import type { IngestIssue } from '../session/model.js';
import { CachecostError } from '../session/errors.js';
import type { GlobalArgs } from './command.js';
import type { CliIo } from './io.js';
import { terminalSafe } from '../format/terminal-safe.js';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `file:line: reason` (line 0 means the whole file, so it is left out), one terminal-safe line: paths and reasons quote logs. */
export function formatIssue(issue: IngestIssue): string {
  const file = terminalSafe(issue.file);
  const reason = terminalSafe(issue.reason);
  return issue.line > 0 ? `${file}:${issue.line}: ${reason}` : `${file}: ${reason}`;
}

/** "12 lines skipped in 3 files" — every issue is a line (or file) not taken as written. */
export function issueCounts(issues: readonly IngestIssue[]): string {
  const files = new Set(issues.map((issue) => issue.file)).size;
  return `${plural(issues.length, 'line')} skipped in ${plural(files, 'file')}`;
}

/**
 * Lists issues on stderr when `--verbose`; throws `STRICT_INGEST` when `--strict` and there are
 * any. Call before printing results, so that `--strict` prints none.
 */
export function checkIssues(issues: readonly IngestIssue[], global: GlobalArgs, io: CliIo): void {
  if (global.verbose) for (const issue of issues) io.stderr(`${formatIssue(issue)}\n`);
  if (global.strict && issues.length > 0) {
    throw new CachecostError('STRICT_INGEST', `${issueCounts(issues)} and --strict is set${global.verbose ? '' : '; --verbose lists them'}`);
  }
}

/** The one summary line after the results (nothing when there were no issues). */
export function reportIssueSummary(issues: readonly IngestIssue[], global: GlobalArgs, io: CliIo): void {
  if (issues.length === 0) return;
  io.stderr(`cachecost: ${issueCounts(issues)}; ${global.verbose ? 'listed above' : '--verbose lists them'}\n`);
}
