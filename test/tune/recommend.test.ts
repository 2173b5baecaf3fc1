import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CurveInput } from '../../src/tune/recommend.js';
import { bestRecommendation, formatTokens, recommendOnCurve } from '../../src/tune/recommend.js';

const USD = 1_000_000_000_000n;

function curve(
  costsCents: readonly number[],
  targets: readonly number[] = costsCents.map((_, i) => (i + 1) * 40_000),
): CurveInput {
  return {
    series: 'freecode',
    knob: 'target',
    knee: null,
    points: costsCents.map((cents, i) => ({
      scenario: `freecode@${targets[i] ?? 0}`,
      targetTokens: targets[i] ?? 0,
      costPicoUsd: (BigInt(cents) * USD) / 100n,
      unpricedRequests: 0,
      compactions: 10 - i,
      sessions: 2,
      summarizedAwayTokens: 100_000,
    })),
  };
}

const recorded = (cents: number) => ({ costPicoUsd: (BigInt(cents) * USD) / 100n, unpricedRequests: 0 });

describe('recommended target', () => {
  it('takes the largest target within the tolerance of the cheapest point', () => {
    // Cheapest 160K at $10.00; 200K at $10.19 is within 2%, 240K at $10.21 is not.
    const r = recommendOnCurve(curve([1300, 1150, 1050, 1000, 1019, 1021, 1100]), recorded(2000), 200);
    expect(r.kind).toBe('target');
    if (r.kind !== 'target') return;
    expect(r.point.targetTokens).toBe(200_000);
    expect(r.cheapest.targetTokens).toBe(160_000);
    expect(r.savingVsRecordedPicoUsd).toBe(981n * (USD / 100n));
    expect(r.savingVsRecordedPct).toBeCloseTo(49.05, 6);
    expect(r.reason).toBe(
      'freecode at 200K, the largest target within 2% of the cheapest (160K, $10.00): it costs $10.19, $9.81 (49.0%) less than recorded, with 3.0 compactions per session summarizing 100K tokens away; the curve has no knee.',
    );
    // Zero tolerance: the cheapest point itself.
    const strict = recommendOnCurve(curve([1300, 1150, 1050, 1000, 1019, 1021, 1100]), recorded(2000), 0);
    expect(strict.kind === 'target' && strict.point.targetTokens).toBe(160_000);
  });

  it('says when the cheapest point is the smallest target swept', () => {
    const r = recommendOnCurve(curve([900, 950, 1000]), recorded(2000), 200);
    expect(r.reason).toMatch(/the smallest target swept: the minimum may lie lower/);
  });

  it('keeps the recorded policy when no target is cheaper, and refuses unpriced curves', () => {
    expect(recommendOnCurve(curve([1300, 1150]), recorded(1100), 200).kind).toBe('keep-recorded');
    const partial = curve([1300, 1150]);
    const unpriced: CurveInput = {
      ...partial,
      points: partial.points.map((p, i) => (i === 1 ? { ...p, unpricedRequests: 3 } : p)),
    };
    expect(recommendOnCurve(unpriced, recorded(2000), 200).kind).toBe('unpriced');
    expect(recommendOnCurve(curve([1300, 1150]), { costPicoUsd: null, unpricedRequests: 4 }, 200).kind).toBe(
      'unpriced',
    );
  });

  it('prefers the cheapest curve’s recommendation', () => {
    const a = recommendOnCurve(curve([1000, 1100]), recorded(2000), 200);
    const b = recommendOnCurve({ ...curve([900, 1200]), series: 'freecode,ttl=1h' }, recorded(2000), 200);
    const best = bestRecommendation([a, b]);
    expect(best.kind === 'target' && best.series).toBe('freecode,ttl=1h');
    expect(bestRecommendation([]).kind).toBe('no-curve');
  });

  it('formats token counts for sentences', () => {
    expect([950, 40_000, 512_500, 1_270_000].map(formatTokens)).toEqual(['950', '40K', '512.5K', '1.27M']);
  });

  // Checked against two deliberate bugs: `<` against the limit (a point exactly at the tolerance
  // is dropped) and stopping at the first larger qualifying target instead of the largest.
  it('is within tolerance, cheaper than recorded, and no larger target qualifies', () => {
    // Costs cluster just above a minimum m (a multiple of 10,000 so that m·(1 + bp) is a whole
    // number), with the tolerance's exact edge drawn often.
    const arbCase = fc
      .record({
        k: fc.integer({ min: 1, max: 50 }),
        bp: fc.integer({ min: 0, max: 2_000 }),
        at: fc.nat(),
        rec: fc.integer({ min: 0, max: 3_000_000 }),
      })
      .chain(({ k, bp, at, rec }) =>
        fc
          .array(
            fc.oneof(
              fc.constant(-1),
              fc.integer({ min: 0, max: 2 * k * bp + 5 }),
              fc.integer({ min: 0, max: 1_000_000 }),
            ),
            { minLength: 1, maxLength: 14 },
          )
          .map((deltas) => {
            const m = k * 10_000;
            const costs = deltas.map((d) => (d === -1 ? m + k * bp : m + d));
            costs.splice(at % (costs.length + 1), 0, m);
            return { costs, bp, rec };
          }),
      );
    fc.assert(
      fc.property(arbCase, ({ costs, bp, rec }) => {
        const input = curve(costs);
        const r = recommendOnCurve(input, recorded(rec), bp);
        const min = BigInt(Math.min(...costs));
        const qualifies = (cents: number) => BigInt(cents) * 10_000n <= min * BigInt(10_000 + bp) && cents < rec;
        if (Math.min(...costs) >= rec) {
          expect(r.kind).toBe('keep-recorded');
          return;
        }
        expect(r.kind).toBe('target');
        if (r.kind !== 'target') return;
        const index = input.points.findIndex((p) => p.scenario === r.point.scenario);
        expect(qualifies(costs[index] ?? 0)).toBe(true);
        costs.forEach((cents, i) => {
          if (i > index) expect(qualifies(cents)).toBe(false);
        });
      }),
    );
  });
});
