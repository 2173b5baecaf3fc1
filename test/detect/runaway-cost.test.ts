import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runawayCost } from '../../src/detect/runaway-cost.js';
import { input, pico, requests, rowsOf, trace } from './trace-fixture.js';

/** Uncached prompts without output: cost = tokens × $3/MTok, computable by hand. */
function uncached(prompts: readonly number[]) {
  return requests(prompts.map((prompt) => ({ prompt, output: 0 })));
}

function flagFor(prompts: readonly number[], baselinePrompts: readonly number[], thresholds = {}) {
  const examined = trace({ requests: uncached(prompts) });
  const baseline = trace({ scenario: 'freecode@120000', requests: uncached(baselinePrompts) });
  return runawayCost.detect(input(examined, { baseline, thresholds }));
}

describe('runaway cost', () => {
  it('flags a spend exactly twice the default target, not one token below it', () => {
    // 10 × 130,000 × $3/MTok = $3.90 against 10 × 65,000 = $1.95: exactly 2×.
    const flag = flagFor(Array(10).fill(130_000), Array(10).fill(65_000));
    expect(flag).toMatchObject({ kind: 'runaway-cost', severity: 'warning', requests: { first: 0, last: 9 } });
    expect(flag?.evidence['costRatio']).toBe(2);
    expect(flag?.stake).toEqual({ kind: 'priced', picoUsd: pico(1.95), against: 'freecode@120000' });
    // One token more in the baseline and the ratio is just under 2.
    expect(flagFor(Array(10).fill(130_000), [65_001, ...Array(9).fill(65_000)])).toBeNull();
  });

  it('is critical from three times the default target on', () => {
    expect(flagFor(Array(10).fill(150_000), Array(10).fill(50_000))?.severity).toBe('critical');
    expect(flagFor(Array(10).fill(150_000), Array(10).fill(50_001))?.severity).toBe('warning');
  });

  it('needs the context above the target: a dear session under it is another flag (a cache bust)', () => {
    expect(flagFor(Array(30).fill(120_000), Array(30).fill(20_000))).toBeNull();
    expect(flagFor([...Array(29).fill(120_000), 120_001], Array(30).fill(20_000))).not.toBeNull();
  });

  it('needs at least the minimum dollars at stake', () => {
    // $0.39 against $0.195: twice as dear but only $0.195 more, under the $0.25 floor.
    expect(flagFor([130_000], [65_000])).toBeNull();
    expect(flagFor([130_000], [65_000], { minUsdAtStake: 0.195 })).not.toBeNull();
  });

  it('compares prompt tokens when a model is unpriced, and says the dollars are unpriced', () => {
    const examined = trace({
      requests: requests(Array(10).fill({ prompt: 130_000, output: 0, model: 'no-such-model' })),
    });
    const baseline = trace({
      scenario: 'freecode@120000',
      requests: requests(Array(10).fill({ prompt: 60_000, output: 0, model: 'no-such-model' })),
    });
    const flag = runawayCost.detect(input(examined, { baseline }));
    expect(flag?.stake).toEqual({ kind: 'unpriced', against: 'freecode@120000' });
    expect(flag?.evidence['costUsd']).toBeNull();
    expect(flag?.summary).toMatch(/unpriced model/);
  });

  it('never flags the comparison scenario itself', () => {
    const examined = trace({ scenario: 'freecode@120000', requests: uncached(Array(10).fill(200_000)) });
    expect(runawayCost.detect(input(examined, { baseline: { ...examined, rows: rowsOf(uncached([1])) } }))).toBeNull();
  });

  it('property: flagged exactly when the hand-computed ratio, excess and peak say so; the stake is the difference', () => {
    // Checked against a deliberate bug: comparing with `>` instead of `>=` (caught at ratio 2 exactly).
    const prompts = fc.array(fc.constantFrom(60_000, 65_000, 119_999, 120_000, 120_001, 130_000, 240_000), {
      minLength: 1,
      maxLength: 12,
    });
    // Half of the cases put the baseline at exactly half the prompts (a 2× ratio, the boundary).
    const pairs = fc.oneof(
      fc.tuple(prompts, prompts),
      fc
        .array(fc.constantFrom(60_000, 120_000, 130_000, 200_000), { minLength: 6, maxLength: 12 })
        .map((mine) => [mine, mine.map((prompt) => prompt / 2)] as const),
    );
    fc.assert(
      fc.property(pairs, ([mine, theirs]) => {
        const flag = flagFor(mine, theirs);
        // $3/MTok, $6 for a prompt above the 200K long-context threshold (pricing.md §1.1).
        const priced = (list: readonly number[]) =>
          list.reduce((sum, prompt) => sum + prompt * (prompt > 200_000 ? 6 : 3), 0);
        const cost = priced(mine);
        const baselineCost = priced(theirs);
        const expected = Math.max(...mine) > 120_000 && cost >= 2 * baselineCost && cost - baselineCost >= 250_000;
        expect(flag !== null).toBe(expected);
        if (flag !== null)
          expect(flag.stake).toEqual({
            kind: 'priced',
            picoUsd: BigInt(cost - baselineCost) * 1_000_000n,
            against: 'freecode@120000',
          });
      }),
    );
  });
});
