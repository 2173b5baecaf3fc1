import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderToolTranscript } from '../../src/engine/index.js';

/** FreeCode's clip, written plainly: collapse every whitespace run, trim, cut at 200 with `…`. */
function naiveClip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 200 ? oneLine : `${oneLine.slice(0, 200)}\u2026`;
}

describe('tool transcript clip on long outputs', () => {
  it('the scan to the cut gives exactly the full clip', () => {
    // Edge of the shortcut: ~200 visible chars, then a whitespace run that may cross the head slice.
    const nearTheCut = fc
      .tuple(fc.nat(900), fc.integer({ min: 190, max: 210 }), fc.nat(1_000), fc.string({ maxLength: 30 }))
      .map(([lead, visible, gap, tail]) => `${' '.repeat(lead)}${'a'.repeat(visible)}${' '.repeat(gap)}${tail}`);
    // The same edge with a run of any white space (and look-alikes), possibly at the very end.
    const anySpace = fc.constantFrom(
      ' ',
      '\u00a0',
      '\u2028',
      '\u2029',
      '\ufeff',
      '\u3000',
      '\u1680',
      '\u202f',
      '\v',
      '\u180e',
    );
    const nearTheCutUnicode = fc
      .tuple(fc.integer({ min: 190, max: 210 }), fc.array(anySpace, { maxLength: 12 }), fc.constantFrom('', 'b', 'b c'))
      .map(([visible, run, tail]) => `${'a'.repeat(visible)}${run.join('')}${tail}`);
    const chunk = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(' ', '\n', '\t', '   \n  ', ' '.repeat(900), 'x'),
      // White space beyond ASCII, and look-alikes that are not white space (U+180E, U+200B, U+0085).
      fc.constantFrom('\u00a0', '\u2028', '\u2029', '\ufeff', '\u3000', '\u2000', '\u200a', '\v\f\r'),
      fc.constantFrom('\u180e', '\u200b', '\u0085', '\u{1F600}', 'é'),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(chunk, { maxLength: 120 }).map((chunks) => chunks.join('')),
          nearTheCut,
          nearTheCutUnicode,
        ),
        (output) => {
          const line = renderToolTranscript([{ tool: 't', output }], 1_000_000);
          // An empty output is "ok" (truthiness, as FreeCode); whitespace alone clips to "".
          expect(line).toBe(output === '' ? 'Tool t: -> ok' : `Tool t: -> ${naiveClip(output)}`);
        },
      ),
      { numRuns: 400 },
    );
  });
});
