import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyWorkStatus } from '../../src/engine/index.js';
import { LOWER_CASES_TO_ASCII, classifyLowerCased } from '../../src/engine/work-status.js';

describe('heuristic status buckets (engine.md §3.2)', () => {
  it('blocked on whole words only', () => {
    for (const content of [
      'Build FAILED on CI',
      'waiting for review',
      'an error occurred',
      'tests failing',
      'I am blocked',
      'two errors left',
    ]) {
      expect(classifyWorkStatus(content)).toBe('blocked');
    }
    for (const content of ['errorless run', 'terrors', 'unblockedness', 'awaiting', 'failedness']) {
      expect(classifyWorkStatus(content)).not.toBe('blocked');
    }
  });

  it('a negation anywhere suppresses blocked for the whole message', () => {
    expect(classifyWorkStatus('no errors, but the build failed')).toBeNull();
    expect(classifyWorkStatus('Fixed issues; the job failed once')).toBeNull();
    expect(classifyWorkStatus('zero blockers, waiting on nothing')).toBeNull();
    expect(classifyWorkStatus('resolved  error in parser')).toBeNull();
    // Word-bounded negation: "known errors" is not a negation.
    expect(classifyWorkStatus('known errors remain')).toBe('blocked');
    // The suppressed message can still land in a lower bucket.
    expect(classifyWorkStatus('no errors; build finished')).toBe('done');
  });

  it('in progress on substrings, before done', () => {
    expect(classifyWorkStatus('Currently refactoring')).toBe('in-progress');
    expect(classifyWorkStatus('working on it, half done')).toBe('in-progress');
    expect(classifyWorkStatus('status: In Progress')).toBe('in-progress');
  });

  it('done on plain substrings, so "abandoned" counts as done', () => {
    expect(classifyWorkStatus('Completed the migration')).toBe('done');
    expect(classifyWorkStatus('finished')).toBe('done');
    expect(classifyWorkStatus('we abandoned that approach')).toBe('done');
    expect(classifyWorkStatus('nothing to report')).toBeNull();
  });

  it('a failed tool-transcript line makes its turn blocked unless the message negates', () => {
    expect(classifyWorkStatus('Let me run it\nTool bash: {"command":"npm test"} -> failed: exit 1')).toBe('blocked');
    expect(classifyWorkStatus('No errors now\nTool bash: {} -> failed: exit 1')).toBeNull();
  });
});

describe('status buckets without a lower-cased copy', () => {
  it('are those of the lower-cased content (§3.2), on any content', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'BLOCKED',
        'Waiting',
        'eRRor',
        'errors',
        'FAILED',
        'failing',
        'No',
        'without',
        'ZERO',
        'resolved',
        'Fixed',
        'Errors',
        'blockers',
        'Issue',
        'issues',
        'Working On',
        'IN PROGRESS',
        'currently',
        'Completed',
        'DONE',
        'finished',
        ' ',
        '  ',
        '\n',
        '\u00a0',
        '_',
        '1',
      ),
      // Characters whose lower case differs in kind: Latin-1 letters, the Kelvin sign (to "k"),
      // U+0130 (to "i" and a combining dot), the long s, Greek and Cyrillic look-alikes.
      fc.constantFrom(
        '\u00c0',
        '\u00d7',
        '\u00df',
        '\u00ff',
        '\u00b5',
        '\u212a',
        '\u0130',
        '\u017f',
        '\u039f',
        '\u0421',
        '\u2026',
        '\u03a3',
        '\u0100',
        '\u2028',
        '\u3000',
        '\ud801\udc00',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const content = pieces.join('');
        expect(classifyWorkStatus(content)).toBe(classifyLowerCased(content));
      }),
      { numRuns: 2_000 },
    );
    // The Kelvin sign lower-cases to "k": blocked only through the lower-cased copy.
    expect(classifyWorkStatus('bloc\u212aed')).toBe('blocked');
    expect(classifyWorkStatus('error\u0130')).toBeNull();
  });

  it('only U+0130 and U+212A lower-case to an ASCII character, or change white space, of every code point beyond Latin-1', () => {
    const found: number[] = [];
    for (let code = 0x100; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      const lower = char.toLowerCase();
      if (lower === char) continue;
      // eslint-disable-next-line no-control-regex -- every ASCII character
      if (/[\u0000-\u007f]/.test(lower) || /\s/.test(lower) !== /\s/.test(char)) found.push(code);
    }
    expect(found).toEqual([0x130, 0x212a]);
    for (const code of found) expect(LOWER_CASES_TO_ASCII.test(String.fromCodePoint(code))).toBe(true);
  });
});
