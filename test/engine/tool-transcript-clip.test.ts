import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderToolTranscript } from '../../src/engine/index.js';

/** FreeCode's clip, written plainly: collapse every whitespace run, trim, cut at 200 with `…`. */
function naiveClip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 200 ? oneLine : `${oneLine.slice(0, 200)}\u2026`;
}

describe('tool transcript clip on long outputs', () => {
  it('the head-only shortcut gives exactly the full clip', () => {
    // Edge of the shortcut: ~200 visible chars, then a whitespace run that may cross the head slice.
    const nearTheCut = fc
      .tuple(fc.nat(900), fc.integer({ min: 190, max: 210 }), fc.nat(1_000), fc.string({ maxLength: 30 }))
      .map(([lead, visible, gap, tail]) => `${' '.repeat(lead)}${'a'.repeat(visible)}${' '.repeat(gap)}${tail}`);
    const chunk = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(' ', '\n', '\t', '   \n  ', ' '.repeat(900), 'x'),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(chunk, { maxLength: 120 }).map((chunks) => chunks.join('')),
          nearTheCut,
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
