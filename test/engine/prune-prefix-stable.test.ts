/**
 * Property (f): pruning is prefix-stable. Across sends with messages appended, the previously sent
 * serialized prefix stays byte-identical; a replaced result is re-sent with the identical
 * replacement; a result once sent whole is never shrunk later.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PruneState, isToolResultPart, pruneHistoryToolResults } from '../../src/engine/index.js';
import type { HistoryMessage, ToolResultPart } from '../../src/engine/index.js';

type Step = { readonly kind: 'user' } | { readonly kind: 'assistant'; readonly resultSizes: readonly number[] };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'user' as const }),
  fc.record({ kind: fc.constant('assistant' as const), resultSizes: fc.array(fc.nat({ max: 400 }), { maxLength: 3 }) }),
);

/** Steps grouped into sends: each send appends its messages, then the history is pruned and sent. */
const sendsArb = fc.array(fc.array(stepArb, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 8 });

describe('property (f): prefix-stable pruning', () => {
  it('keeps every previously sent message byte-identical and every decision sticky', () => {
    fc.assert(
      fc.property(sendsArb, fc.nat({ max: 1_500 }), (sends, budgetChars) => {
        const state = new PruneState();
        const history: HistoryMessage[] = [];
        let previous: string[] = [];
        const shown = new Map<string, string>();
        let n = 0;
        for (const send of sends) {
          for (const step of send) {
            n += 1;
            history.push(
              step.kind === 'user'
                ? { id: `u${n}`, role: 'user', parts: [{ type: 'text', content: `prompt ${n}` }] }
                : {
                    id: `a${n}`,
                    role: 'assistant',
                    parts: step.resultSizes.map((size, i): ToolResultPart => ({
                      type: 'tool',
                      id: `t${n}-${i}`,
                      name: 'read',
                      result: 'r'.repeat(size),
                    })),
                  },
            );
          }
          const outcome = pruneHistoryToolResults(history, state, budgetChars);
          const sent = outcome.messages.map((m) => JSON.stringify(m));
          expect(sent.slice(0, previous.length)).toEqual(previous);
          for (const message of outcome.messages) {
            for (const part of message.parts) {
              if (!isToolResultPart(part)) continue;
              const before = shown.get(part.id);
              if (before !== undefined) expect(part.result).toBe(before);
              shown.set(part.id, part.result);
            }
          }
          previous = sent;
        }
      }),
    );
  });
});
