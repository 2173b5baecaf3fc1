/**
 * Exact costs for the detectors: every request priced by the TypeScript pricing reference
 * (`priceUsage`, integer pico-dollars, the same numbers as the DuckDB reports). A request without a
 * price is counted as unpriced, never as $0.
 */
import type { PriceTable } from '../cost/index.js';
import { modelIdOf } from '../cost/model-resolution.js';
import { priceRequest } from '../cost/price-request.js';
import { priceAt } from '../cost/price-table.js';
import type { RequestKind } from '../cost/rows.js';
import type { ReplayRow } from '../simulate/replay.js';
import type { RequestRange } from './flag.js';
import type { TraceRequest, TraceUsage } from './trace.js';

/** A sum of request costs: the priced part and how many requests had no price. */
export type CostSum = { readonly picoUsd: bigint; readonly unpriced: number };

export const ZERO_COST: CostSum = { picoUsd: 0n, unpriced: 0 };

/**
 * One request's cost in pico-dollars, or null when it is unpriced: `priceCounts` (`priceForModel`
 * then `priceRequest`), with the model's name resolved once per table (`modelIdOf`).
 */
export function usageCostPicoUsd(
  prices: PriceTable,
  model: string,
  timestampMs: number | null,
  usage: TraceUsage,
  kind: RequestKind = 'request',
): bigint | null {
  const id = modelIdOf(prices, model);
  // The counts priced where they are: spreading a replay row into a new object for every row of
  // every detector was most of what the flags allocated.
  const cost = priceRequest(
    {
      kind,
      prompt_tokens: usage.promptTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_5m_tokens: usage.cacheWrite5mTokens,
      cache_write_1h_tokens: usage.cacheWrite1hTokens,
      uncached_input_tokens: usage.uncachedInputTokens,
      output_tokens: usage.outputTokens,
    },
    id === null ? null : priceAt(prices, id, timestampMs),
  );
  return cost === null ? null : cost.totalPicoUsd;
}

/** Adds one cost (null = unpriced) to a sum. */
export function addCost(sum: CostSum, picoUsd: bigint | null): CostSum {
  return picoUsd === null
    ? { picoUsd: sum.picoUsd, unpriced: sum.unpriced + 1 }
    : { picoUsd: sum.picoUsd + picoUsd, unpriced: sum.unpriced };
}

function inRange(requestIndex: number, range: RequestRange | null): boolean {
  return range === null || (requestIndex >= range.first && requestIndex <= range.last);
}

/** The cost of replay rows (summarizer calls included, rejected sends free) whose request is in `range` (null = all). */
export function rowsCost(prices: PriceTable, rows: readonly ReplayRow[], range: RequestRange | null): CostSum {
  let sum = ZERO_COST;
  for (const row of rows) {
    if (!inRange(row.requestIndex, range)) continue;
    sum = addCost(sum, usageCostPicoUsd(prices, row.model, row.timestampMs, row, row.kind));
  }
  return sum;
}

/** The cost of trace requests in `range` (null = all). */
export function requestsCost(
  prices: PriceTable,
  requests: readonly TraceRequest[],
  range: RequestRange | null,
): CostSum {
  let sum = ZERO_COST;
  for (const request of requests) {
    if (!inRange(request.requestIndex, range)) continue;
    sum = addCost(sum, usageCostPicoUsd(prices, request.model, request.timestampMs, request));
  }
  return sum;
}
