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
