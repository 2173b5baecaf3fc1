/**
 * Property (a), on-disk half: what the provider receives after a compaction starts at a user
 * message. FreeCode histories start with the user's prompt, and the trim keeps that true, so the
 * invariant is inductive over repeated compactions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepLastNUserTurns } from '../../src/engine/index.js';

const historyArb = fc
  .array(fc.constantFrom('user', 'assistant'), { maxLength: 20 })
  .map((rest) => ['user', ...rest].map((role, i) => ({ id: `s${i}`, role })));

describe('property (a): the trimmed provider history starts at a user message', () => {
  it('holds for both versions, any n, and after repeated trims with appends', () => {
    fc.assert(
      fc.property(
        historyArb,
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
        fc.array(fc.constantFrom('user', 'assistant'), { maxLength: 8 }),
        (stored, n, version, appended) => {
          const once = keepLastNUserTurns(stored, n, version);
          expect(once[0]?.role).toBe('user');
          const grown = [...once, ...appended.map((role, i) => ({ id: `x${i}`, role }))];
          const twice = keepLastNUserTurns(grown, n, version);
          expect(twice[0]?.role).toBe('user');
        },
      ),
    );
  });
});
