/**
 * Tokens of one billed request, or of a sum of them, by prompt-cache class (pricing.md §1,
 * replay.md §8): `promptTokens = cacheReadTokens + cacheWrite5mTokens + cacheWrite1hTokens +
 * uncachedInputTokens`, inclusive as the provider bills it. The one shape replay rows, traces,
 * totals and reports share in camelCase (the DuckDB columns are their snake_case twins).
 */
export type CacheClassTokens = {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
};

/**
 * Of a request's `cacheWrite` tokens, those whose TTL the log does not give (no 5m/1h split, or
 * only half of one; null = not given): billed in the 5m column at the 5m rate, and shown apart
 * (pricing.md §1: a write whose TTL is unknown is not silently a 5m write).
 */
export function unknownTtlTokens(cacheWrite: number, cacheWrite5m: number | null, cacheWrite1h: number | null): number {
  if (cacheWrite5m !== null && cacheWrite1h !== null) return 0;
  return cacheWrite - (cacheWrite5m ?? 0) - (cacheWrite1h ?? 0);
}

/**
 * The 5m column of a request's measured cache writes: every write that is not a known 1h write (a
 * known 5m write, or one whose TTL the log does not give: `unknownTtlTokens`). With the 1h column
 * (`cacheWrite1hTokens ?? 0`), the two add up to the request's `cacheWrite` tokens.
 */
export function billedWrite5mTokens(usage: {
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens: number | null;
}): number {
  return usage.cacheWriteTokens - (usage.cacheWrite1hTokens ?? 0);
}
