/**
 * Estimate divergence (replay.md §9): FreeCode's own token estimate far below what the provider
 * counts. The estimate is `ceil(chars / 4)` of its memory transcript (prompt text, assistant
 * text, clipped tool transcripts; no system block, no images: engine.md §1.5, §1.6), and it is
 * what `compact.occurred` records (§6.6): it once said 14.5K for a real 196K context. The engine
 * decides on it whenever the provider reported no usage, and reports built on it understate
 * savings by an order of magnitude. A counting error, not a spend: no dollars at stake.
 */
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { clampRequestIndex } from './target-ceiling.js';
import type { TraceCompaction } from './trace.js';
import { plural, times, tokens } from './wording.js';

type Point = {
  readonly compaction: TraceCompaction;
  readonly estimateTokens: number;
  readonly providerTokens: number;
  readonly ratio: number;
};

function detect(input: DetectorInput): Flag | null {
  const { trace, thresholds } = input;
  const points: Point[] = [];
  for (const compaction of trace.compactions) {
    if (compaction.estimateTokensBefore === null || compaction.promptTokensBefore === null) continue;
    // An empty transcript estimates 0; count it as 1 so the ratio stays finite.
    const ratio = compaction.promptTokensBefore / Math.max(1, compaction.estimateTokensBefore);
    points.push({
      compaction,
      estimateTokens: compaction.estimateTokensBefore,
      providerTokens: compaction.promptTokensBefore,
      ratio,
    });
  }
  const diverging = points.filter(
    (point) =>
      point.providerTokens >= thresholds.estimateDivergenceMinTokens &&
      point.ratio >= thresholds.estimateDivergenceRatio,
  );
  if (diverging.length === 0) return null;
  const worst = diverging.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const first = diverging[0];
  const last = diverging[diverging.length - 1];
  if (first === undefined || last === undefined) return null;
  return {
    kind: 'estimate-divergence',
    severity: 'info',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: trace.scenario === 'recorded' ? 'measured' : 'simulated',
    requests: {
      first: clampRequestIndex(trace, first.compaction.requestIndex - 1),
      last: clampRequestIndex(trace, last.compaction.requestIndex - 1),
    },
    evidence: {
      divergingPoints: diverging.length,
      comparedPoints: points.length,
      worstEstimateTokens: worst.estimateTokens,
      worstProviderTokens: worst.providerTokens,
      worstRatio: worst.ratio,
    },
    summary:
      `FreeCode's estimate was ${tokens(worst.estimateTokens)} where the provider counted ${tokens(worst.providerTokens)} (${times(worst.ratio)} off) ` +
      `at ${plural(diverging.length, 'compaction')} of ${points.length}; compaction records and any decision without measured usage use the estimate`,
    stake: { kind: 'none', reason: 'a counting error, not a spend: the flags it causes carry the cost' },
  };
}

export const estimateDivergence: Detector = { kind: 'estimate-divergence', detect };
