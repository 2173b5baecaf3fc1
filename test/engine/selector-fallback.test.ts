/** Property (d): with fewer user turns than `preserveRecentTurns`, §2.2's fallback holds. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineParams, selectForCompaction } from '../../src/engine/index.js';
import type { Msg } from './support/messages.js';
import { tokens, userCount } from './support/selector-oracle.js';

/** Transcripts with few user messages (mostly replies, as in a headless run). */
const fewPromptsArb = fc
  .array(
    fc.record({
      role: fc.oneof(
        { arbitrary: fc.constant<'user'>('user'), weight: 1 },
        { arbitrary: fc.constant<'assistant'>('assistant'), weight: 5 },
      ),
      tokenCount: fc.nat({ max: 5_000 }),
    }),
    { maxLength: 12 },
  )
  .map((rows): Msg[] => rows.map((row, i) => ({ id: `m${i}`, ...row })));

describe('property (d): the fallback with fewer user turns than preserveRecentTurns', () => {
  it('newest: the tail is within the last N messages, exactly the last N when they fit the cap', () => {
    fc.assert(
      fc.property(
        fewPromptsArb,
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<'freecode' | 'strict'>('freecode', 'strict'),
        (messages, turns, selector) => {
          fc.pre(userCount(messages) < turns);
          const params = engineParams({ preserveRecentTurns: turns, selector });
          const result = selectForCompaction(messages, params);
          const fallbackStart = Math.max(0, messages.length - turns);
          expect(result.tailStartIndex).toBeGreaterThanOrEqual(fallbackStart);
          const lastN = messages.slice(fallbackStart);
          if (selector === 'freecode' && tokens(lastN) <= params.maxPreserveRecentTokens) {
            expect(result.tailStartIndex).toBe(fallbackStart);
          }
          // Something is summarized whenever there is anything before the last N (the headless fix).
          if (fallbackStart > 0)
            expect(result.summarize.length + (result.headIndex === null ? 0 : 1)).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('aug: nothing is summarized and everything is kept', () => {
    fc.assert(
      fc.property(fewPromptsArb, fc.integer({ min: 0, max: 4 }), (messages, turns) => {
        fc.pre(userCount(messages) <= turns);
        const result = selectForCompaction(messages, engineParams({ version: 'aug', preserveRecentTurns: turns }));
        expect(result.summarize).toEqual([]);
        expect(result.preserve).toEqual(messages);
      }),
    );
  });
});
