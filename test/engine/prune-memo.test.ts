/**
 * The memos the pruning policies accept (a replay prunes the same growing history on every
 * request) only save work: every call with a memo returns what the same call without one returns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage, MicrocompactDecision } from '../../src/engine/index.js';
import {
  applyMicrocompact,
  applyPruningPolicy,
  newPruneMemo,
  PruneState,
  renderToolTranscript,
  slidingLegacyTruncate,
  timeBasedMicrocompact,
} from '../../src/engine/index.js';
import type { ToolActivity } from '../../src/engine/index.js';
import { assistant, text, tool, user } from './support/messages.js';

/** A history growing one message at a time: results around the 1,000-char cap, responses of several messages. */
const historyArb = fc
  .array(
    fc.record({
      role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant', 'assistant'),
      results: fc.array(fc.oneof(fc.nat({ max: 1_500 }), fc.constantFrom(0, 999, 1_000, 1_001)), { maxLength: 3 }),
      response: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    }),
    { maxLength: 16 },
  )
  .map((rows) =>
    rows.map((row, i): HistoryMessage => {
      if (row.role === 'user') return user(`u${i}`);
      const parts = [text(`text ${i}`), ...row.results.map((chars, k) => tool(`t${i}-${k}`, 'r'.repeat(chars)))];
      return assistant(`a${i}`, parts, row.response === undefined ? undefined : `resp${row.response}`);
    }),
  );

describe('pruning memos', () => {
  it('sliding truncation with a memo equals it without, call after call on a growing history', () => {
    fc.assert(
      fc.property(historyArb, fc.nat({ max: 3 }), fc.constantFrom(500, 1_000), (history, keep, cap) => {
        const memo = newPruneMemo();
        for (let n = 0; n <= history.length; n++) {
          const prefix = history.slice(0, n);
          expect(slidingLegacyTruncate(prefix, keep, cap, memo.sliding)).toEqual(
            slidingLegacyTruncate(prefix, keep, cap),
          );
          // A memo filled under another cap must not leak into this one.
          expect(slidingLegacyTruncate(prefix, keep, 1_000, memo.sliding)).toEqual(
            slidingLegacyTruncate(prefix, keep, 1_000),
          );
        }
      }),
    );
  });

  it('applyPruningPolicy passes the memo through without changing any policy', () => {
    fc.assert(
      fc.property(historyArb, (history) => {
        const memo = newPruneMemo();
        const withMemo = new PruneState();
        const without = new PruneState();
        for (let n = 0; n <= history.length; n++) {
          const prefix = history.slice(0, n);
          for (const policy of [
            { kind: 'sliding-legacy', keepRecentResponses: 2, capChars: 1_000 },
            { kind: 'none' },
          ] as const)
            expect(applyPruningPolicy(prefix, policy, new PruneState(), 0, memo)).toEqual(
              applyPruningPolicy(prefix, policy, new PruneState(), 0),
            );
          expect(applyPruningPolicy(prefix, { kind: 'prefix-stable' }, withMemo, 2_000, memo)).toEqual(
            applyPruningPolicy(prefix, { kind: 'prefix-stable' }, without, 2_000),
          );
        }
      }),
    );
  });

  it('prefix-stable pruning with one memo, call after call of any history length, budget and reset, equals it without', () => {
    fc.assert(
      fc.property(
        historyArb,
        fc.array(
          fc.record({
            n: fc.nat({ max: 16 }),
            budget: fc.constantFrom(0, 500, 1_600, 2_000, 1_000_000),
            // The Aug engine forgets every decision at each run (engine.md §5.1); a new replay starts afresh.
            reset: fc.boolean(),
          }),
          { minLength: 1, maxLength: 24 },
        ),
        (history, calls) => {
          // One memo for every call, as a session's replays share `ReplayMemo.prune`.
          const memo = newPruneMemo();
          const withMemo = new PruneState();
          const without = new PruneState();
          for (const { n, budget, reset } of calls) {
            if (reset) {
              withMemo.reset();
              without.reset();
            }
            const prefix = history.slice(0, n);
            expect(applyPruningPolicy(prefix, { kind: 'prefix-stable' }, withMemo, budget, memo)).toEqual(
              applyPruningPolicy(prefix, { kind: 'prefix-stable' }, without, budget),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('microcompact with a memo per decision equals it without', () => {
    fc.assert(
      fc.property(historyArb, fc.nat({ max: 16 }), (history, cut) => {
        const decided: MicrocompactDecision = timeBasedMicrocompact(history.slice(0, cut), 0, 1_000_000);
        const memo = new WeakMap<HistoryMessage, HistoryMessage>();
        for (let n = 0; n <= history.length; n++) {
          const prefix = history.slice(0, n);
          expect(applyMicrocompact(prefix, decided, memo)).toEqual(applyMicrocompact(prefix, decided));
        }
      }),
    );
  });

  it('a tool transcript with a line memo equals it without, for entries seen again', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tool: fc.constantFrom('read', 'bash'),
            args: fc.option(fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 300 })), {
              nil: undefined,
            }),
            output: fc.option(fc.string({ maxLength: 400 }), { nil: undefined }),
            error: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }),
          }),
          { maxLength: 8 },
        ),
        fc.nat({ max: 2_000 }),
        (entries: ToolActivity[], maxChars) => {
          const memo = new WeakMap<ToolActivity, string>();
          for (let n = 0; n <= entries.length; n++) {
            const activity = entries.slice(0, n);
            expect(renderToolTranscript(activity, maxChars, memo)).toBe(renderToolTranscript(activity, maxChars));
          }
        },
      ),
    );
  });
});
