/** The dollars at stake of a flag, as differences of exact costs (see `Stake` in `flag.ts`). */
import type { PriceTable } from '../cost/index.js';
import { picoUsdToUsd } from '../cost/money.js';
import type { RequestRange, Stake } from './flag.js';
import type { FlagThresholds } from './thresholds.js';
import type { Trace } from './trace.js';
import type { CostSum } from './usage-cost.js';
import { rowsCost } from './usage-cost.js';

/** A stake from two cost sums: flagged minus comparison; unpriced when either misses a price. */
export function stakeFromCosts(flagged: CostSum, comparison: CostSum, against: string): Stake {
  if (flagged.unpriced > 0 || comparison.unpriced > 0) return { kind: 'unpriced', against };
  return { kind: 'priced', picoUsd: flagged.picoUsd - comparison.picoUsd, against };
}

/**
 * The cost of `trace` minus the cost of `comparison` over the flagged requests, both priced from
 * replay rows (for `recorded`, the recorded replay), so that modelling error cancels (replay.md §3).
 * A trace compared with itself has no stake.
 */
export function stakeAgainstScenario(prices: PriceTable, trace: Trace, comparison: Trace, range: RequestRange): Stake {
  if (trace.scenario === comparison.scenario)
    return { kind: 'none', reason: `${trace.scenario} is the comparison scenario itself` };
  return stakeFromCosts(
    rowsCost(prices, trace.rows, range),
    rowsCost(prices, comparison.rows, range),
    comparison.scenario,
  );
}

/**
 * Whether a cost flag's stake is worth a reader's attention: a priced stake of at least
 * `minUsdAtStake`. An unpriced stake cannot be compared and is always shown.
 */
export function worthFlagging(stake: Stake, thresholds: FlagThresholds): boolean {
  return stake.kind !== 'priced' || picoUsdToUsd(stake.picoUsd) >= thresholds.minUsdAtStake;
}
