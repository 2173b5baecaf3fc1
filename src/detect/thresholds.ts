/**
 * The detectors' thresholds: one zod-validated object (`thresholds-schema.ts`) with documented
 * defaults (README "Flags" justifies each with the real-world figures of engine.md). A config file
 * or `--threshold` options give any subset; unknown names are rejected so that a typo is not
 * silently ignored.
 */
import type { FlagThresholds } from './thresholds-schema.js';

export type { FlagThresholds } from './thresholds-schema.js';

/** The defaults (README "Flags" gives the reason for each). */
export const DEFAULT_THRESHOLDS: FlagThresholds = {
  targetTokens: 120_000,
  runawayCostRatio: 2,
  runawayCriticalRatio: 3,
  minUsdAtStake: 0.25,
  neverCompactedMinRequests: 10,
  criticalContextMultiple: 2,
  overflowMinRejections: 2,
  stormMinCompactions: 3,
  stormMinProgressPct: 10,
  stormCriticalCompactions: 50,
  hookStormMinBlocks: 3,
  holdGrowthTokens: 5_000,
  cacheBustMinMissTokens: 1_024,
  cacheBustMinRequests: 3,
  cacheBustCriticalCostShare: 0.25,
  estimateDivergenceRatio: 10,
  estimateDivergenceMinTokens: 50_000,
  ttlMinGaps: 3,
};
