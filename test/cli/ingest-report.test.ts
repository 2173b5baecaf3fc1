import { describe, expect, it } from 'vitest';
import { issueCounts, noteCounts, problemIssues, skippedSessionsNotice } from '../../src/cli/ingest-report.js';
import type { IngestIssue } from '../../src/session/model.js';

// The summary counts what happened to the input, never issues as if each were one skipped line
// ("4 lines skipped in 3 files" for one skipped line was the bug).
describe('ingest summary counts', () => {
  const skipped: IngestIssue = { file: 'a.jsonl', line: 4, reason: 'malformed JSON' };

  it('one skipped line among a repair, a whole-file issue and notes is one skipped line', () => {
    const issues: IngestIssue[] = [
      skipped,
      { file: 'b.jsonl', line: 9, reason: 'cache read + write exceed input', effect: 'repaired' },
      { file: 'c.jsonl', line: 0, reason: 'another rollout of this session was found; not read' },
      { file: 'a.jsonl', line: 7, reason: 'reports no usage', effect: 'usage-not-reported' },
      { file: 'd.jsonl', line: 2, reason: 'forked from P', effect: 'fork-replay' },
      { file: 'e.jsonl', line: 3, reason: 'ran 2 web searches', effect: 'unbilled-web-search' },
      { file: 'e.jsonl', line: 8, reason: 'ran 1 web search', effect: 'unbilled-web-search' },
    ];
    expect(issueCounts(issues)).toBe('1 line skipped, 1 line repaired, 1 file with a whole-file issue in 3 files');
    expect(problemIssues(issues)).toHaveLength(3);
    expect(noteCounts(issues)).toBe(
      "1 request without reported usage (counted apart, not priced); 1 forked rollout whose copy of the parent's history was not counted again; " +
        '2 responses with web searches, billed per search and left out of the bill',
    );
  });

  it('the same issue reported twice, or two reasons for one line, is one line', () => {
    expect(issueCounts([skipped, skipped, { ...skipped, reason: 'missing field "type"' }])).toBe(
      '1 line skipped in 1 file',
    );
  });

  it('a line both repaired and skipped was skipped', () => {
    expect(issueCounts([skipped, { ...skipped, reason: 'repaired usage', effect: 'repaired' }])).toBe(
      '1 line skipped in 1 file',
    );
  });

  it('an unknown record type reported once for 3 lines counts 3 skipped lines', () => {
    const unknown: IngestIssue = {
      file: 'a.jsonl',
      line: 12,
      reason: 'unknown record type "x" (3 lines); ignored',
      lines: 3,
    };
    expect(issueCounts([skipped, unknown])).toBe('4 lines skipped in 1 file');
  });

  it('notes alone are no ingest issues', () => {
    expect(issueCounts([{ file: 'a', line: 1, reason: 'copy', effect: 'counted-elsewhere' }])).toBe('no ingest issues');
  });
});

// A fleet's logs can hold thousands of sessions without per-request data: one line names a few.
describe('the notice of sessions not replayed', () => {
  const quiet = { verbose: false, strict: false };
  const ids = (count: number): string[] =>
    Array.from({ length: count }, (_, i) => `s${String(count - i).padStart(3, '0')}`);

  it('says nothing when every session was replayed', () => {
    expect(skippedSessionsNotice([], 'replayed', quiet)).toBeNull();
  });

  it('names up to six sessions, sorted', () => {
    expect(skippedSessionsNotice(ids(6), 'examined', quiet)).toBe(
      'cachecost: 6 session(s) without per-request data were not examined: s001, s002, s003, s004, s005, s006\n',
    );
  });

  it('names the first five of more and counts the rest; --verbose names every one', () => {
    expect(skippedSessionsNotice(ids(1000), 'replayed', quiet)).toBe(
      'cachecost: 1000 session(s) without per-request data were not replayed: s001, s002, s003, s004, s005 and 995 more (--verbose lists them)\n',
    );
    const all = skippedSessionsNotice(ids(7), 'replayed', { ...quiet, verbose: true });
    expect(all).toBe(
      'cachecost: 7 session(s) without per-request data were not replayed: s001, s002, s003, s004, s005, s006, s007\n',
    );
  });

  it('keeps a session id from writing control characters to the terminal', () => {
    expect(skippedSessionsNotice(['a\u001b[2Jb'], 'replayed', quiet)).not.toContain('\u001b');
  });
});
