import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neverCompacted } from '../../src/detect/never-compacted.js';
import type { Trace } from '../../src/detect/trace.js';
import { compaction, input, requests, stableRequests, trace } from './trace-fixture.js';

const above = (count: number) => Array(count).fill(125_000);

/** The baseline costs the same here (no dollars at stake), so the dollar floor is off unless a test sets it. */
function flagFor(prompts: readonly number[], fields: Partial<Trace> = {}, thresholds = {}) {
  return neverCompacted.detect(
    input(trace({ requests: stableRequests(prompts), ...fields }), { thresholds: { minUsdAtStake: 0, ...thresholds } }),
  );
}

describe('never compacted while above target', () => {
  it('flags ten consecutive requests above the 120K target with no attempt, not nine', () => {
    const flag = flagFor([100_000, ...above(10), 100_000]);
    expect(flag).toMatchObject({ kind: 'never-compacted', severity: 'warning', requests: { first: 1, last: 10 } });
    expect(flag?.evidence).toMatchObject({
      requestsAboveTarget: 10,
      longestStretchRequests: 10,
      compactions: 0,
      targetTokens: 120_000,
    });
    expect(flagFor([100_000, ...above(9), 100_000])).toBeNull();
  });

  it('a prompt equal to the target is not above it', () => {
    expect(flagFor([...above(9), 120_000])).toBeNull();
    expect(flagFor([...above(9), 120_001])).not.toBeNull();
  });

  it('any compaction attempt, even one a hook blocked, breaks the stretch', () => {
    const blocked = [compaction(5, { outcome: 'blocked' })];
    expect(flagFor(above(10), { compactions: blocked })).toBeNull();
    expect(flagFor(above(15), { compactions: blocked })).toMatchObject({ requests: { first: 5, last: 14 } });
  });

  it('holds a scenario to its own target, and never above the usable window', () => {
    expect(flagFor(above(12), { targetTokens: 200_000 })).toBeNull();
    // A 100K window leaves 68K usable: 70K prompts are above it.
    const small = flagFor(Array(10).fill(70_000), { windowTokens: 100_000, usableWindowTokens: 68_000 });
    expect(small?.evidence['targetTokens']).toBe(68_000);
  });

  it('is critical at twice the target (the 270K-on-a-968K-window case)', () => {
    expect(flagFor([...above(9), 240_000])?.severity).toBe('critical');
    expect(flagFor([...above(9), 239_999])?.severity).toBe('warning');
  });

  it('prices only the flagged stretch against the baseline', () => {
    const examined = trace({
      requests: requests([{ prompt: 50_000, output: 0 }, ...above(10).map((prompt) => ({ prompt, output: 0 }))]),
    });
    const baseline = trace({
      scenario: 'freecode@120000',
      requests: requests([{ prompt: 10_000, output: 0 }, ...Array(10).fill({ prompt: 100_000, output: 0 })]),
    });
    const flag = neverCompacted.detect(input(examined, { baseline }));
    // 10 × 25,000 tokens × $3/MTok; the first request (outside the stretch) does not count.
    expect(flag?.stake).toEqual({ kind: 'priced', picoUsd: 10n * 25_000n * 3_000_000n, against: 'freecode@120000' });
    // $0.75 at stake: flagged up to a $0.75 floor, not above it.
    expect(neverCompacted.detect(input(examined, { baseline, thresholds: { minUsdAtStake: 0.75 } }))).not.toBeNull();
    expect(neverCompacted.detect(input(examined, { baseline, thresholds: { minUsdAtStake: 0.750001 } }))).toBeNull();
  });

  it('property: the flagged requests are exactly the runs of at least ten prompts above the target', () => {
    // Checked against a deliberate bug: `>=` for "above" (caught by prompts equal to 120,000).
    const prompts = fc.array(fc.constantFrom(100_000, 120_000, 120_001, 150_000), { maxLength: 40 });
    fc.assert(
      fc.property(prompts, (list) => {
        const runs: number[] = [];
        let run = 0;
        for (const prompt of [...list, 0]) {
          if (prompt > 120_000) run += 1;
          else {
            if (run >= 10) runs.push(run);
            run = 0;
          }
        }
        const flag = flagFor(list);
        expect(flag === null ? 0 : flag.evidence['requestsAboveTarget']).toBe(runs.reduce((a, b) => a + b, 0));
      }),
    );
  });
});
