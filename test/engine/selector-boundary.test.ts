/**
 * Property (a): after a compaction the in-memory preserved block starts at a user message or is
 * empty — true for the `strict` selector, false for FreeCode's literal rule (documented findings).
 * The on-disk half of (a) is in keep-last-turns-boundary.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineParams, selectForCompaction } from '../../src/engine/index.js';
import type { SelectorParams } from '../../src/engine/index.js';
import { capArb, ids, transcriptArb } from './support/messages.js';
import type { Msg } from './support/messages.js';

function preservedStartsAtUser(messages: readonly Msg[], params: SelectorParams): boolean {
  const { summarize, preserve } = selectForCompaction(messages, params);
  // No compaction happens when nothing is summarized (§4.5 step 2).
  return summarize.length === 0 || preserve.length === 0 || preserve[0]?.role === 'user';
}

const paramsArb = fc.record({
  version: fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
  preserveRecentTurns: fc.integer({ min: 0, max: 4 }),
  maxPreserveRecentTokens: capArb(12_000),
  maxPreserveHeadTokens: capArb(4_000),
});

describe('property (a): the preserved block starts at a user message', () => {
  it('holds for the strict selector, any version and caps', () => {
    fc.assert(
      fc.property(transcriptArb(), paramsArb, (messages, overrides) =>
        preservedStartsAtUser(messages, engineParams({ ...overrides, selector: 'strict' })),
      ),
    );
  });

  // For the literal selector fast-check finds counterexamples; each search below is seeded, and
  // the shrunk history it reported is pinned as a literal example (documented findings).
  const defaults = engineParams({ selector: 'freecode' });
  const userFirst = (m: readonly Msg[]) => m[0]?.role === 'user';
  const prompts = (m: readonly Msg[]) => m.filter((x) => x.role === 'user').length;
  const findCounterexample = (precondition: (m: readonly Msg[]) => boolean) => {
    const result = fc.check(
      fc.property(transcriptArb(), (m) => {
        fc.pre(precondition(m));
        return preservedStartsAtUser(m, defaults);
      }),
      { seed: 1 },
    );
    expect(result.failed).toBe(true);
    const [counterexample] = result.counterexample ?? [];
    if (counterexample === undefined) throw new Error('fast-check reported no counterexample');
    expect(preservedStartsAtUser(counterexample, defaults)).toBe(false);
    return counterexample;
  };

  it('finding 1: the drop-from-front rule (§2.2 step 3) leaves an assistant message first', () => {
    const found = findCounterexample((m) => userFirst(m) && prompts(m) >= 2);
    // Shrunk counterexample (seed 1): 10,002 tokens from the second-to-last prompt; dropping u0
    // leaves 8,001, dropping u1 leaves a2 alone; u0 is 1 token too big for the head carve-out.
    const history: Msg[] = [
      { id: 'm0', role: 'user', tokenCount: 2_001 },
      { id: 'm1', role: 'user', tokenCount: 4_000 },
      { id: 'm2', role: 'assistant', tokenCount: 4_001 },
    ];
    // Pinned to fast-check 4's shrinker; if an upgrade shrinks elsewhere, re-pin the new literal.
    expect(found).toEqual(history);
    const literal = selectForCompaction(history, defaults);
    expect(ids(literal.summarize)).toEqual(['m0', 'm1']);
    expect(ids(literal.preserve)).toEqual(['m2']);
    // The strict selector keeps the last user turn whole, even above the cap.
    const strict = selectForCompaction(history, engineParams({ selector: 'strict' }));
    expect(ids(strict.summarize)).toEqual(['m0']);
    expect(ids(strict.preserve)).toEqual(['m1', 'm2']);
  });

  it('finding 2: the headless fallback (§2.2 step 1) keeps replies without their prompt', () => {
    const found = findCounterexample((m) => userFirst(m) && prompts(m) === 1);
    // Shrunk counterexample (seed 1): one prompt 1 token above the head cap, then two replies.
    // The last-2-messages fallback keeps the replies and summarizes the prompt; no token cap involved.
    const history: Msg[] = [
      { id: 'm0', role: 'user', tokenCount: 2_001 },
      { id: 'm1', role: 'assistant', tokenCount: 0 },
      { id: 'm2', role: 'assistant', tokenCount: 0 },
    ];
    // Pinned to fast-check 4's shrinker; if an upgrade shrinks elsewhere, re-pin the new literal.
    expect(found).toEqual(history);
    const literal = selectForCompaction(history, defaults);
    expect(ids(literal.summarize)).toEqual(['m0']);
    expect(ids(literal.preserve)).toEqual(['m1', 'm2']);
    const strict = selectForCompaction(history, engineParams({ selector: 'strict' }));
    expect(ids(strict.summarize)).toEqual(['m0', 'm1', 'm2']);
    expect(strict.preserve).toEqual([]);
  });
});
