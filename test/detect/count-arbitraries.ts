// The token counts of one request by cache class, for the detectors' pricing properties.
import fc from 'fast-check';

/** A request's counts whose classes add up to its prompt, each class at most `max` tokens. */
export function classCounts(max: number) {
  const tokens = fc.integer({ min: 0, max });
  return fc.tuple(tokens, tokens, tokens, tokens, tokens).map(([read, write5m, write1h, uncached, output]) => ({
    promptTokens: read + write5m + write1h + uncached,
    cacheReadTokens: read,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    uncachedInputTokens: uncached,
    outputTokens: output,
  }));
}
