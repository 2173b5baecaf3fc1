/**
 * The TypeScript pricing reference: one request's cost per class in exact integer pico-dollars.
 * The SQL in `sql/request_costs.sql` computes the same numbers; the differential test holds
 * them equal to the last digit.
 */
import type { CacheClassTokens } from '../session/cache-class-tokens.js';
import type { ClassRates, ModelPrice, PriceTable } from './price-table.js';
import { picoProduct } from './money.js';
import { priceForModel } from './model-resolution.js';
import type { RequestRow } from './rows.js';

/** The fields of a row that pricing reads. */
export type BillableUsage = Pick<
  RequestRow,
  | 'kind'
  | 'prompt_tokens'
  | 'cache_read_tokens'
  | 'cache_write_5m_tokens'
  | 'cache_write_1h_tokens'
  | 'uncached_input_tokens'
  | 'output_tokens'
>;

export type RequestCost = {
  /** Whether the long-context tier applied (to every class of this request). */
  readonly longContext: boolean;
  readonly inputPicoUsd: bigint;
  readonly cacheReadPicoUsd: bigint;
  readonly cacheWrite5mPicoUsd: bigint;
  readonly cacheWrite1hPicoUsd: bigint;
  readonly outputPicoUsd: bigint;
  readonly totalPicoUsd: bigint;
};

const NOT_BILLED: RequestCost = {
  longContext: false,
  inputPicoUsd: 0n,
  cacheReadPicoUsd: 0n,
  cacheWrite5mPicoUsd: 0n,
  cacheWrite1hPicoUsd: 0n,
  outputPicoUsd: 0n,
  totalPicoUsd: 0n,
};

/** tokens × rate (exact); null when tokens were used in a class the price has no rate for. */
function classCost(tokens: number, rate: number | null): bigint | null {
  if (tokens === 0) return 0n;
  return rate === null ? null : picoProduct(rate, tokens);
}

/**
 * The cost of one request under `price` (the window in effect at its time), or null when it is
 * unpriced: no price, or tokens in a class the price lacks (never $0). The long-context tier is
 * decided per request: when the whole prompt exceeds the threshold every token of it, all
 * classes and the output, is billed at the tier's rates (pricing.md §1.1). A rejected overflow
 * is not billed (cost 0).
 */
export function priceRequest(row: BillableUsage, price: ModelPrice | null): RequestCost | null {
  switch (row.kind) {
    case 'rejected_overflow':
      return NOT_BILLED;
    case 'request':
    case 'summarize':
      break;
    default: {
      const unreachable: never = row.kind;
      return unreachable;
    }
  }
  if (price === null) return null;
  const longContext = price.longContext !== null && row.prompt_tokens > price.longContext.thresholdTokens;
  const rates: ClassRates =
    longContext && price.longContext !== null ? price.longContext.ratesPicoUsdPerToken : price.ratesPicoUsdPerToken;
  const inputPicoUsd = classCost(row.uncached_input_tokens, rates.input);
  const cacheReadPicoUsd = classCost(row.cache_read_tokens, rates.cacheRead);
  const cacheWrite5mPicoUsd = classCost(row.cache_write_5m_tokens, rates.cacheWrite5m);
  const cacheWrite1hPicoUsd = classCost(row.cache_write_1h_tokens, rates.cacheWrite1h);
  const outputPicoUsd = classCost(row.output_tokens, rates.output);
  if (
    inputPicoUsd === null ||
    cacheReadPicoUsd === null ||
    cacheWrite5mPicoUsd === null ||
    cacheWrite1hPicoUsd === null ||
    outputPicoUsd === null
  ) {
    return null;
  }
  return {
    longContext,
    inputPicoUsd,
    cacheReadPicoUsd,
    cacheWrite5mPicoUsd,
    cacheWrite1hPicoUsd,
    outputPicoUsd,
    totalPicoUsd: inputPicoUsd + cacheReadPicoUsd + cacheWrite5mPicoUsd + cacheWrite1hPicoUsd + outputPicoUsd,
  };
}

/** `priceRequest` with the model resolved by name and the price window chosen by the row's timestamp. */
export function priceRow(
  table: PriceTable,
  row: BillableUsage & Pick<RequestRow, 'model' | 'timestamp_ms'>,
): RequestCost | null {
  return priceRequest(row, priceForModel(table, row.model, row.timestamp_ms));
}

/** A request's usage in the replay's camelCase vocabulary (a replay row, a trace request). */
export type UsageToPrice = CacheClassTokens & {
  readonly kind: BillableUsage['kind'];
  readonly model: string;
  readonly timestampMs: number | null;
};

/** `priceRow` for usage in camelCase: one mapping to the table's columns instead of one per caller. */
export function priceUsage(table: PriceTable, usage: UsageToPrice): RequestCost | null {
  return priceCounts(table, usage.kind, usage.model, usage.timestampMs, usage);
}

/**
 * `priceUsage` with the request's kind, model and time apart from its counts: a caller whose counts
 * sit in an object of their own (a replay row's usage) prices them without copying them into one.
 */
export function priceCounts(
  table: PriceTable,
  kind: BillableUsage['kind'],
  model: string,
  timestampMs: number | null,
  counts: CacheClassTokens,
): RequestCost | null {
  return priceRow(table, {
    kind,
    model,
    timestamp_ms: timestampMs,
    prompt_tokens: counts.promptTokens,
    cache_read_tokens: counts.cacheReadTokens,
    cache_write_5m_tokens: counts.cacheWrite5mTokens,
    cache_write_1h_tokens: counts.cacheWrite1hTokens,
    uncached_input_tokens: counts.uncachedInputTokens,
    output_tokens: counts.outputTokens,
  });
}
