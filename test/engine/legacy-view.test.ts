/**
 * `LegacyHistoryView` works the legacy history out call after call; every call must show what the
 * microcompact then the sliding truncation show of the same history, message object for message
 * object (the replay's renderer and cache model key on the objects), whatever the calls do: grow,
 * rewind to a shorter or another history, change the microcompact decision.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage, MicrocompactDecision } from '../../src/engine/index.js';
import {
  LegacyHistoryView,
  applyMicrocompact,
  newPruneMemo,
  slidingLegacyTruncate,
  timeBasedMicrocompact,
} from '../../src/engine/index.js';
import { assistant, text, tool, user } from './support/messages.js';

/** Messages of responses that may repeat anywhere (not only side by side), or have no response id. */
const messagesArb = (prefix: string) =>
  fc
    .array(
      fc.record({
        role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant', 'assistant'),
        results: fc.array(fc.oneof(fc.nat({ max: 1_500 }), fc.constantFrom(0, 200, 201, 1_000, 1_001)), {
          maxLength: 3,
        }),
        response: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
      }),
      { maxLength: 14 },
    )
    .map((rows) =>
      rows.map((row, i): HistoryMessage => {
        if (row.role === 'user') return user(`${prefix}u${i}`);
        const parts = [text(`text ${i}`), ...row.results.map((chars, k) => tool(`t${i}-${k}`, 'r'.repeat(chars)))];
        return assistant(`${prefix}a${i}`, parts, row.response === undefined ? undefined : `resp${row.response}`);
      }),
    );

describe('LegacyHistoryView', () => {
  it('shows, call after call, the same messages as applyMicrocompact then slidingLegacyTruncate', () => {
    fc.assert(
      fc.property(
        messagesArb('x'),
        messagesArb('y'),
        fc.nat({ max: 3 }),
        fc.constantFrom(200, 1_000),
        fc.array(
          fc.record({
            // A prefix of the main history, or a rewind: its first `n` messages, then the other history's.
            n: fc.nat({ max: 14 }),
            other: fc.option(fc.nat({ max: 14 }), { nil: undefined }),
            // A new decision (a new user message's run): not idle, or clearing what the history holds.
            decide: fc.option(fc.boolean(), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        (main, alternative, keep, cap, calls) => {
          const memo = newPruneMemo();
          const view = new LegacyHistoryView<HistoryMessage>(keep, cap, memo.sliding);
          let decision: MicrocompactDecision = { kind: 'not-idle' };
          let cleared = new WeakMap<HistoryMessage, HistoryMessage>();
          for (const { n, other, decide } of calls) {
            const history = [...main.slice(0, n), ...(other === undefined ? [] : alternative.slice(0, other))];
            if (decide !== undefined) {
              decision = timeBasedMicrocompact(history, 0, decide ? 1_000_000 : 1);
              cleared = new WeakMap();
            }
            const shown = view.show(history, decision, cleared);
            const expected = slidingLegacyTruncate(
              applyMicrocompact(history, decision, cleared),
              keep,
              cap,
              memo.sliding,
            );
            expect(shown.length).toBe(expected.messages.length);
            shown.forEach((message, i) => expect(message).toBe(expected.messages[i]));
            // And the same content as without any memo.
            expect(shown).toEqual(slidingLegacyTruncate(applyMicrocompact(history, decision), keep, cap).messages);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
