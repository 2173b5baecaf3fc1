/**
 * Prefix-stable pruning with a memo works out only the messages after the part of the history the
 * last call saw unchanged (`PrefixStableMemo.tracked`). The property: over any sequence of what a
 * replay does to its history between sends (messages appended, a tool result joining an earlier
 * message, a rewind, a compaction keeping the tail, the Aug engine's reset), with tool-call ids
 * that repeat and results that are empty, every call with the memo returns what the same call
 * from scratch returns, and leaves the state as it does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryMessage, HistoryPart } from '../../src/engine/index.js';
import { PruneState, isToolResultPart, newPruneMemo, pruneHistoryToolResults } from '../../src/engine/index.js';
import { assistant, text, tool, user } from './support/messages.js';

type Step =
  | { readonly kind: 'user' }
  | { readonly kind: 'assistant'; readonly results: readonly { readonly id: number; readonly chars: number }[] }
  | { readonly kind: 'attach'; readonly at: number; readonly chars: number }
  | { readonly kind: 'rewind'; readonly at: number }
  | { readonly kind: 'compact'; readonly at: number }
  | { readonly kind: 'reset' }
  | { readonly kind: 'send'; readonly budget: number };

/** Few ids, so that some repeat; sizes around the budgets, empty ones among them. */
const MAX_ID = 40;
const resultArb = fc.record({
  id: fc.oneof(fc.nat({ max: 3 }), fc.integer({ min: 4, max: MAX_ID })),
  chars: fc.oneof(fc.nat({ max: 900 }), fc.constantFrom(0, 0, 300, 600)),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'user' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('assistant' as const), results: fc.array(resultArb, { maxLength: 3 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('attach' as const),
      at: fc.nat({ max: 40 }),
      chars: fc.integer({ min: 1, max: 900 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), at: fc.nat({ max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), at: fc.nat({ max: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      budget: fc.constantFrom(0, 400, 1_000, 2_500, 100_000),
    }),
  },
);

/** The message at `at` (modulo the length) with its first empty tool result filled, as a new object. */
function attached(history: readonly HistoryMessage[], at: number, chars: number): HistoryMessage[] {
  if (history.length === 0) return [...history];
  const index = at % history.length;
  const message = history[index];
  if (message === undefined) return [...history];
  let done = false;
  const parts = message.parts.map((part): HistoryPart => {
    if (done || !isToolResultPart(part) || part.result !== '') return part;
    done = true;
    return { ...part, result: 'r'.repeat(chars) };
  });
  if (!done) return [...history];
  const next = [...history];
  next[index] = { ...message, parts };
  return next;
}

function decisions(state: PruneState): string[] {
  const out: string[] = [];
  for (let id = 0; id <= MAX_ID; id++) {
    const replacement = state.replacementFor(`t${id}`);
    out.push(replacement !== undefined ? `r:${replacement}` : state.isFrozen(`t${id}`) ? 'frozen' : 'fresh');
  }
  return out;
}

describe('prefix-stable pruning, worked out from where the history changed', () => {
  it('equals the call from scratch, send after send, whatever happens to the history between sends', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 60, size: 'max' }), (steps) => {
        const memo = newPruneMemo().prefixStable;
        const withMemo = new PruneState();
        const fromScratch = new PruneState();
        let history: HistoryMessage[] = [];
        let serial = 0;
        /** Each send's list as returned, and a copy made then: the caller's own, never changed by a later send. */
        const sent: { readonly list: readonly HistoryMessage[]; readonly copy: readonly HistoryMessage[] }[] = [];
        for (const step of steps) {
          serial += 1;
          switch (step.kind) {
            case 'user':
              history = [...history, user(`u${serial}`)];
              break;
            case 'assistant':
              history = [
                ...history,
                assistant(`a${serial}`, [
                  text(`text ${serial}`),
                  ...step.results.map((result) => tool(`t${result.id}`, 'r'.repeat(result.chars))),
                ]),
              ];
              break;
            case 'attach':
              history = attached(history, step.at, step.chars);
              break;
            case 'rewind':
              history = history.slice(0, step.at % (history.length + 1));
              break;
            case 'compact':
              history = history.slice(step.at % (history.length + 1));
              break;
            case 'reset':
              withMemo.reset();
              fromScratch.reset();
              break;
            case 'send': {
              const outcome = pruneHistoryToolResults(history, withMemo, step.budget, memo);
              expect(outcome).toEqual(pruneHistoryToolResults(history, fromScratch, step.budget));
              expect(decisions(withMemo)).toEqual(decisions(fromScratch));
              sent.push({ list: outcome.messages, copy: [...outcome.messages] });
              break;
            }
            default: {
              const unreachable: never = step;
              return unreachable;
            }
          }
        }
        for (const { list, copy } of sent) expect(list).toEqual(copy);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reuses the unchanged messages: a growing history keeps the last call’s shown copies', () => {
    const memo = newPruneMemo().prefixStable;
    const state = new PruneState();
    // t1 is not in the last assistant message: replaced at the first call.
    const history: HistoryMessage[] = [user('u0'), assistant('a1', [tool('t1', 'x'.repeat(500))]), assistant('a2', [])];
    const first = pruneHistoryToolResults(history, state, 100, memo);
    const second = pruneHistoryToolResults(
      [...history, user('u3'), assistant('a4', [tool('t4', 'y'.repeat(500))])],
      state,
      100,
      memo,
    );
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(second.stats).toEqual({
      candidateCount: 2,
      replacedCount: 1,
      newlyReplacedCount: 0,
      charsBefore: 1_000,
      charsAfter: (first.messages[1]?.parts[0] as { result: string }).result.length + 500,
    });
  });
});
