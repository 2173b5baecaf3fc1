/** Property (c): the preserved tail respects `maxPreserveRecentTokens` exactly as §2.2 step 3 specifies. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineParams, selectForCompaction } from '../../src/engine/index.js';
import { capArb, transcriptArb } from './support/messages.js';
import { augEarlyReturn, boundaryIndex, tokens } from './support/selector-oracle.js';

const paramsArb = fc.record({
  version: fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
  preserveRecentTurns: fc.integer({ min: 0, max: 4 }),
  maxPreserveRecentTokens: capArb(12_000),
});

describe('property (c): the token cap on the preserved tail', () => {
  it('freecode: the tail fits the cap or is a single message, and drops stop as soon as it fits', () => {
    fc.assert(
      fc.property(transcriptArb(), paramsArb, (messages, overrides) => {
        const params = engineParams({ ...overrides, selector: 'freecode' });
        fc.pre(!augEarlyReturn(messages, params));
        const result = selectForCompaction(messages, params);
        const tail = messages.slice(result.tailStartIndex);
        const cap = params.maxPreserveRecentTokens;
        expect(tokens(tail) <= cap || tail.length === 1).toBe(true);
        const start = boundaryIndex(messages, params);
        expect(result.tailStartIndex).toBeGreaterThanOrEqual(start);
        // Minimal dropping: the message dropped last would have made the tail too big.
        if (result.tailStartIndex > start)
          expect(tokens(messages.slice(result.tailStartIndex - 1))).toBeGreaterThan(cap);
      }),
    );
  });

  it('strict: the tail fits the cap or is the last user turn alone, and whole turns are dropped minimally', () => {
    fc.assert(
      fc.property(transcriptArb(), paramsArb, (messages, overrides) => {
        const params = engineParams({ ...overrides, selector: 'strict' });
        fc.pre(!augEarlyReturn(messages, params));
        const result = selectForCompaction(messages, params);
        const tail = messages.slice(result.tailStartIndex);
        const cap = params.maxPreserveRecentTokens;
        const usersInTail = tail.filter((m) => m.role === 'user').length;
        expect(tokens(tail) <= cap || usersInTail === 1).toBe(true);
        if (tail.length > 0) expect(tail[0]?.role).toBe('user');
        // Minimal dropping: adding back the previous turn (if it was dropped for the cap) would not fit.
        const start = boundaryIndex(messages, params);
        const previousTurnStart = messages
          .slice(0, result.tailStartIndex)
          .map((m) => m.role)
          .lastIndexOf('user');
        if (previousTurnStart >= start && previousTurnStart !== -1 && tail.length > 0) {
          expect(tokens(messages.slice(previousTurnStart))).toBeGreaterThan(cap);
        }
      }),
    );
  });
});
