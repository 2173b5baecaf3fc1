import { describe, expect, it } from 'vitest';
import { estimateDivergence } from '../../src/detect/estimate-divergence.js';
import type { TraceCompaction } from '../../src/detect/trace.js';
import { compaction, input, stableRequests, trace } from './trace-fixture.js';

const point = (at: number, estimate: number, provider: number): TraceCompaction =>
  compaction(at, {
    estimateTokensBefore: estimate,
    promptTokensBefore: provider,
    promptTokensAfter: 30_000,
    estimateTokensAfter: 3_000,
  });

function flagFor(compactions: readonly TraceCompaction[], thresholds = {}) {
  return estimateDivergence.detect(
    input(trace({ requests: stableRequests([60_000, 110_000, 30_000, 200_000, 40_000]), compactions }), { thresholds }),
  );
}

describe('estimate divergence', () => {
  it("flags FreeCode's estimate ten times under the provider's count, not 9.99 times", () => {
    const flag = flagFor([point(2, 11_000, 110_000)]);
    expect(flag).toMatchObject({ kind: 'estimate-divergence', severity: 'info', requests: { first: 1, last: 1 } });
    expect(flag?.evidence).toMatchObject({
      divergingPoints: 1,
      comparedPoints: 1,
      worstEstimateTokens: 11_000,
      worstProviderTokens: 110_000,
      worstRatio: 10,
    });
    expect(flag?.stake.kind).toBe('none');
    expect(flagFor([point(2, 11_001, 110_000)])).toBeNull();
  });

  it('reproduces the 14.5K-vs-196K case and reports the worst point', () => {
    const flag = flagFor([point(2, 11_000, 110_000), point(4, 14_500, 196_000)]);
    expect(flag?.summary).toMatch(/14\.5K where the provider counted 196K \(14× off\)/);
    expect(flag?.requests).toEqual({ first: 1, last: 3 });
  });

  it('ignores contexts under 50,000 tokens, where the static block the estimate never counts dominates', () => {
    // The §12 example: 105 estimated against 13,400 measured.
    expect(flagFor([point(1, 105, 13_400)])).toBeNull();
    expect(flagFor([point(1, 5_000, 50_000)])).not.toBeNull();
    expect(flagFor([point(1, 4_999, 49_999)])).toBeNull();
  });

  it('needs both counts: a compaction the log gives no measurement for is not compared', () => {
    expect(flagFor([compaction(2, { estimateTokensBefore: 1_000 })])).toBeNull();
  });
});
