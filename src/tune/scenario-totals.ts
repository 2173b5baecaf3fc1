/**
 * What one scenario costs and gives up, summed over sessions: the billed totals `simulate`
 * reports (the same definitions as `src/cost/sql/session_costs.sql`, so the two agree to the
 * pico-dollar), plus what a compaction target trades away. Money is exact integer pico-dollars
 * (`src/cost/money.ts`); a row without a price is counted in `unpricedRequests`, never priced $0.
 */
import type { CacheClassTokens } from '../session/cache-class-tokens.js';
import type { PriceTable } from '../cost/price-table.js';
import { priceUsage } from '../cost/price-request.js';
import type { ReplayCompaction, ReplayRow } from '../simulate/replay.js';

/** Cost of the priced rows by what it paid for; the parts add up to the total. */
export type CostParts = {
  /** Cache reads of the agent's requests. */
  readonly cacheReadPicoUsd: bigint;
  /** Cache writes (5m and 1h) of the agent's requests. */
  readonly cacheWritePicoUsd: bigint;
  /** Uncached input of the agent's requests. */
  readonly uncachedInputPicoUsd: bigint;
  /** Output of the agent's requests. */
  readonly outputPicoUsd: bigint;
  /** Every class of the modelled summarizer calls (`summarize` rows): the price of compacting. */
  readonly summarizerPicoUsd: bigint;
};

/** Billed tokens (`CacheClassTokens`: requests and summarizer calls; rejected sends excluded) and counts. */
export type ScenarioTotals = CacheClassTokens & {
  readonly sessions: number;
  /** Rows of kind `request` (the agent's own calls). */
  readonly requests: number;
  readonly summarizeRequests: number;
  /** Sends refused for their size: counted, never billed. */
  readonly rejectedOverflows: number;
  readonly failedTurns: number;
  /** Largest context after an agent request (its prompt plus its output), over sessions. */
  readonly peakContextTokens: number;
  /** Completed compactions. */
  readonly compactions: number;
  /** Compactions a PreCompact hook blocked. */
  readonly blockedCompactions: number;
  /** Σ over completed compactions of the prompt tokens they removed (before − after, provider count). */
  readonly summarizedAwayTokens: number;
  /** Rows sent right after a compaction (`compaction_before`), as `session_costs.sql` counts them. */
  readonly requestsAfterCompaction: number;
  /** Billed rows priced, and billed rows left out of the cost for want of a price. */
  readonly pricedRequests: number;
  readonly unpricedRequests: number;
  readonly cost: CostParts;
};

export const ZERO_COST: CostParts = {
  cacheReadPicoUsd: 0n,
  cacheWritePicoUsd: 0n,
  uncachedInputPicoUsd: 0n,
  outputPicoUsd: 0n,
  summarizerPicoUsd: 0n,
};

export const EMPTY_TOTALS: ScenarioTotals = {
  sessions: 0,
  requests: 0,
  summarizeRequests: 0,
  rejectedOverflows: 0,
  failedTurns: 0,
  promptTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  uncachedInputTokens: 0,
  outputTokens: 0,
  peakContextTokens: 0,
  compactions: 0,
  blockedCompactions: 0,
  summarizedAwayTokens: 0,
  requestsAfterCompaction: 0,
  pricedRequests: 0,
  unpricedRequests: 0,
  cost: ZERO_COST,
};

/** The total of the parts, in pico-dollars. */
export function totalPicoUsd(cost: CostParts): bigint {
  return (
    cost.cacheReadPicoUsd +
    cost.cacheWritePicoUsd +
    cost.uncachedInputPicoUsd +
    cost.outputPicoUsd +
    cost.summarizerPicoUsd
  );
}

/** The cost in pico-dollars, or null when nothing billed could be priced (unpriced, never $0). */
export function costPicoUsdOrNull(totals: ScenarioTotals): bigint | null {
  return totals.pricedRequests === 0 && totals.unpricedRequests > 0 ? null : totalPicoUsd(totals.cost);
}

/** The row fields totals read: a replay row, or a measured one converted to its shape. */
export type TotalsRow = Pick<
  ReplayRow,
  | 'kind'
  | 'model'
  | 'timestampMs'
  | 'promptTokens'
  | 'cacheReadTokens'
  | 'cacheWrite5mTokens'
  | 'cacheWrite1hTokens'
  | 'uncachedInputTokens'
  | 'outputTokens'
  | 'contextTokensAfter'
  | 'compactionBefore'
>;

/**
 * One session's totals under one scenario: rows priced one by one with the TypeScript pricing
 * reference (`priceRow`), compactions counted as the cost tables count them (an attempt that
 * neither compacted nor was blocked is no compaction). Models of unpriced rows are added to
 * `unpricedModels` when given.
 */
export function sessionTotals(
  prices: PriceTable,
  rows: readonly TotalsRow[],
  compactions: readonly ReplayCompaction[],
  failedTurns: number,
  unpricedModels?: Set<string>,
): ScenarioTotals {
  let requests = 0;
  let summarizeRequests = 0;
  let rejectedOverflows = 0;
  let promptTokens = 0;
  let cacheReadTokens = 0;
  let cacheWrite5mTokens = 0;
  let cacheWrite1hTokens = 0;
  let uncachedInputTokens = 0;
  let outputTokens = 0;
  let peakContextTokens = 0;
  let requestsAfterCompaction = 0;
  let pricedRequests = 0;
  let unpricedRequests = 0;
  let cacheReadPicoUsd = 0n;
  let cacheWritePicoUsd = 0n;
  let uncachedInputPicoUsd = 0n;
  let outputPicoUsd = 0n;
  let summarizerPicoUsd = 0n;
  for (const row of rows) {
    if (row.compactionBefore) requestsAfterCompaction += 1;
    switch (row.kind) {
      case 'rejected_overflow':
        rejectedOverflows += 1;
        continue;
      case 'request':
        requests += 1;
        if (row.contextTokensAfter > peakContextTokens) peakContextTokens = row.contextTokensAfter;
        break;
      case 'summarize':
        summarizeRequests += 1;
        break;
      default: {
        const unreachable: never = row.kind;
        return unreachable;
      }
    }
    promptTokens += row.promptTokens;
    cacheReadTokens += row.cacheReadTokens;
    cacheWrite5mTokens += row.cacheWrite5mTokens;
    cacheWrite1hTokens += row.cacheWrite1hTokens;
    uncachedInputTokens += row.uncachedInputTokens;
    outputTokens += row.outputTokens;
    const cost = priceUsage(prices, row);
    if (cost === null) {
      unpricedRequests += 1;
      unpricedModels?.add(row.model);
      continue;
    }
    pricedRequests += 1;
    if (row.kind === 'summarize') {
      summarizerPicoUsd += cost.totalPicoUsd;
      continue;
    }
    cacheReadPicoUsd += cost.cacheReadPicoUsd;
    cacheWritePicoUsd += cost.cacheWrite5mPicoUsd + cost.cacheWrite1hPicoUsd;
    uncachedInputPicoUsd += cost.inputPicoUsd;
    outputPicoUsd += cost.outputPicoUsd;
  }
  let completed = 0;
  let blocked = 0;
  let summarizedAwayTokens = 0;
  for (const compaction of compactions) {
    if (compaction.hookBlocked) blocked += 1;
    else if (compaction.compacted) {
      completed += 1;
      summarizedAwayTokens += Math.max(0, compaction.promptTokensBefore - compaction.promptTokensAfter);
    }
  }
  return {
    sessions: 1,
    requests,
    summarizeRequests,
    rejectedOverflows,
    failedTurns,
    promptTokens,
    cacheReadTokens,
    cacheWrite5mTokens,
    cacheWrite1hTokens,
    uncachedInputTokens,
    outputTokens,
    peakContextTokens,
    compactions: completed,
    blockedCompactions: blocked,
    summarizedAwayTokens,
    requestsAfterCompaction,
    pricedRequests,
    unpricedRequests,
    cost: { cacheReadPicoUsd, cacheWritePicoUsd, uncachedInputPicoUsd, outputPicoUsd, summarizerPicoUsd },
  };
}

/** The sum of two totals (peak: the larger); associative and commutative, EMPTY_TOTALS is its unit. */
export function addTotals(a: ScenarioTotals, b: ScenarioTotals): ScenarioTotals {
  return {
    sessions: a.sessions + b.sessions,
    requests: a.requests + b.requests,
    summarizeRequests: a.summarizeRequests + b.summarizeRequests,
    rejectedOverflows: a.rejectedOverflows + b.rejectedOverflows,
    failedTurns: a.failedTurns + b.failedTurns,
    promptTokens: a.promptTokens + b.promptTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWrite5mTokens: a.cacheWrite5mTokens + b.cacheWrite5mTokens,
    cacheWrite1hTokens: a.cacheWrite1hTokens + b.cacheWrite1hTokens,
    uncachedInputTokens: a.uncachedInputTokens + b.uncachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    peakContextTokens: Math.max(a.peakContextTokens, b.peakContextTokens),
    compactions: a.compactions + b.compactions,
    blockedCompactions: a.blockedCompactions + b.blockedCompactions,
    summarizedAwayTokens: a.summarizedAwayTokens + b.summarizedAwayTokens,
    requestsAfterCompaction: a.requestsAfterCompaction + b.requestsAfterCompaction,
    pricedRequests: a.pricedRequests + b.pricedRequests,
    unpricedRequests: a.unpricedRequests + b.unpricedRequests,
    cost: {
      cacheReadPicoUsd: a.cost.cacheReadPicoUsd + b.cost.cacheReadPicoUsd,
      cacheWritePicoUsd: a.cost.cacheWritePicoUsd + b.cost.cacheWritePicoUsd,
      uncachedInputPicoUsd: a.cost.uncachedInputPicoUsd + b.cost.uncachedInputPicoUsd,
      outputPicoUsd: a.cost.outputPicoUsd + b.cost.outputPicoUsd,
      summarizerPicoUsd: a.cost.summarizerPicoUsd + b.cost.summarizerPicoUsd,
    },
  };
}
