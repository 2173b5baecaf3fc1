/** Property (b): summarized + preserved reproduce the original history, nothing lost or duplicated. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineParams, selectForCompaction } from '../../src/engine/index.js';
import { capArb, transcriptArb } from './support/messages.js';

const paramsArb = fc.record({
  version: fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
  selector: fc.constantFrom<'freecode' | 'strict'>('freecode', 'strict'),
  preserveRecentTurns: fc.integer({ min: 0, max: 4 }),
  maxPreserveRecentTokens: capArb(12_000),
  maxPreserveHeadTokens: capArb(4_000),
});

describe('property (b): selection is a partition of the history in order', () => {
  it('every message lands exactly once; the tail is a contiguous suffix; only the head may jump', () => {
    fc.assert(
      fc.property(transcriptArb(), paramsArb, (messages, overrides) => {
        const params = engineParams(overrides);
        const result = selectForCompaction(messages, params);
        const indexOf = (m: (typeof messages)[number]) => messages.indexOf(m);
        const summarized = result.summarize.map(indexOf);
        const preserved = result.preserve.map(indexOf);

        // Nothing lost, nothing duplicated, nothing invented.
        expect([...summarized, ...preserved].sort((a, b) => a - b)).toEqual(messages.map((_, i) => i));
        // Both lists keep the original order.
        expect(summarized).toEqual([...summarized].sort((a, b) => a - b));
        expect(preserved).toEqual([...preserved].sort((a, b) => a - b));

        // The preserved block is [head?] + messages[tailStartIndex..].
        const tail = result.headIndex === null ? preserved : preserved.slice(1);
        expect(tail).toEqual(messages.map((_, i) => i).slice(result.tailStartIndex));
        if (result.headIndex !== null) {
          // §2.2 step 5: the first user message, newest only, within the head cap, before the tail.
          expect(params.version).toBe('newest');
          expect(preserved[0]).toBe(result.headIndex);
          expect(result.headIndex).toBe(messages.findIndex((m) => m.role === 'user'));
          expect(result.headIndex).toBeLessThan(result.tailStartIndex);
          expect(messages[result.headIndex]?.tokenCount).toBeLessThanOrEqual(params.maxPreserveHeadTokens);
        }
        expect(result.summarizeTokenCount).toBe(result.summarize.reduce((s, m) => s + m.tokenCount, 0));
        expect(result.preserveTokenCount).toBe(result.preserve.reduce((s, m) => s + m.tokenCount, 0));
      }),
    );
  });

  it('newest carves out the first user message whenever it is summarized and small enough', () => {
    fc.assert(
      fc.property(transcriptArb(), (messages) => {
        const params = engineParams();
        const result = selectForCompaction(messages, params);
        const first = messages.find((m) => m.role === 'user');
        if (first !== undefined && first.tokenCount <= params.maxPreserveHeadTokens) {
          expect(result.summarize).not.toContain(first);
        }
      }),
    );
  });
});
