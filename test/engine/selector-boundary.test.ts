/**
 * Property (a): after a compaction the in-memory preserved block starts at a user message or is
 * empty — true for the `strict` selector, false for FreeCode's literal rule (documented findings).
 * The on-disk half of (a) is in keep-last-turns-boundary.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineParams, selectForCompaction } from '../../src/engine/index.js';
import type { SelectorParams } from '../../src/engine/index.js';
import { ids, transcriptArb } from './support/messages.js';
import type { Msg } from './support/messages.js';

function preservedStartsAtUser(messages: readonly Msg[], params: SelectorParams): boolean {
  const { summarize, preserve } = selectForCompaction(messages, params);
  // No compaction happens when nothing is summarized (§4.5 step 2).
  return summarize.length === 0 || preserve.length === 0 || preserve[0]?.role === 'user';
}

const paramsArb = fc.record({
  version: fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
  preserveRecentTurns: fc.integer({ min: 0, max: 4 }),
  maxPreserveRecentTokens: fc.integer({ min: 0, max: 12_000 }),
  maxPreserveHeadTokens: fc.integer({ min: 0, max: 4_000 }),
});

describe('property (a): the preserved block starts at a user message', () => {
  it('holds for the strict selector, any version and caps', () => {
    fc.assert(
      fc.property(transcriptArb(), paramsArb, (messages, overrides) =>
        preservedStartsAtUser(messages, engineParams({ ...overrides, selector: 'strict' })),
      ),
    );
  });

  it('fails for the literal freecode selector: fast-check finds counterexamples', () => {
    const defaults = engineParams({ selector: 'freecode' });
    const anyTranscript = fc.check(fc.property(transcriptArb(), (m) => preservedStartsAtUser(m, defaults)), { seed: 1 });
    expect(anyTranscript.failed).toBe(true);
    const userFirstWithTwoPrompts = fc.check(
      fc.property(transcriptArb(), (m) => {
        fc.pre(m[0]?.role === 'user' && m.filter((x) => x.role === 'user').length >= 2);
        return preservedStartsAtUser(m, defaults);
      }),
      { seed: 1 },
    );
    expect(userFirstWithTwoPrompts.failed).toBe(true);
    for (const result of [anyTranscript, userFirstWithTwoPrompts]) {
      const [counterexample] = result.counterexample ?? [];
      expect(counterexample).toBeDefined();
      if (counterexample !== undefined) expect(preservedStartsAtUser(counterexample, defaults)).toBe(false);
    }
  });

  it('finding 1 (shrunk, seed 1): the drop-from-front rule (§2.2 step 3) leaves an assistant first', () => {
    // u0 + a1 + u2 = 8,001 > 8,000: u0 is dropped, and at 3,695 tokens it is too big to carve out.
    const history: Msg[] = [
      { id: 'm0', role: 'user', tokenCount: 3_695 },
      { id: 'm1', role: 'assistant', tokenCount: 1_495 },
      { id: 'm2', role: 'user', tokenCount: 2_811 },
    ];
    const literal = selectForCompaction(history, engineParams());
    expect(ids(literal.summarize)).toEqual(['m0']);
    expect(ids(literal.preserve)).toEqual(['m1', 'm2']);
    // The strict selector drops the whole first turn instead.
    const strict = selectForCompaction(history, engineParams({ selector: 'strict' }));
    expect(ids(strict.summarize)).toEqual(['m0', 'm1']);
    expect(ids(strict.preserve)).toEqual(['m2']);
  });

  it('finding 2 (shrunk, seed 1): the headless fallback (§2.2 step 1) keeps replies without their prompt', () => {
    // One prompt just above the 2,000-token head cap, then two replies: the last-2-messages
    // fallback keeps the replies and the prompt is summarized. Not caused by the token cap.
    const history: Msg[] = [
      { id: 'm0', role: 'user', tokenCount: 2_001 },
      { id: 'm1', role: 'assistant', tokenCount: 0 },
      { id: 'm2', role: 'assistant', tokenCount: 0 },
    ];
    const literal = selectForCompaction(history, engineParams());
    expect(ids(literal.summarize)).toEqual(['m0']);
    expect(ids(literal.preserve)).toEqual(['m1', 'm2']);
    const strict = selectForCompaction(history, engineParams({ selector: 'strict' }));
    expect(ids(strict.summarize)).toEqual(['m0', 'm1', 'm2']);
    expect(strict.preserve).toEqual([]);
  });
});
