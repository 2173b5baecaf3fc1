/**
 * `withReadTokens` writes its counts out instead of spreading the request: the same six counts as
 * the spread it replaced (kept here as the reference), and the prompt's classes still add up.
 *
 * Checked against a deliberate bug: the tokens read less moved to the 5m writes under a 1h TTL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withReadTokens } from '../../src/detect/cache-prefix.js';
import type { TraceUsage } from '../../src/detect/trace.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { CacheRules } from '../../src/provider/cache-rules.js';
import { classCounts } from './count-arbitraries.js';

/** The rule as it was written before (a spread of the usage), for the differential property. */
function reference(usage: TraceUsage, readTokens: number, rules: CacheRules, ttl: '5m' | '1h'): TraceUsage {
  const delta = readTokens - usage.cacheReadTokens;
  if (delta >= 0) {
    let rest = delta;
    const from5m = Math.min(rest, usage.cacheWrite5mTokens);
    rest -= from5m;
    const from1h = Math.min(rest, usage.cacheWrite1hTokens);
    rest -= from1h;
    const fromUncached = Math.min(rest, usage.uncachedInputTokens);
    return {
      ...usage,
      cacheReadTokens: usage.cacheReadTokens + from5m + from1h + fromUncached,
      cacheWrite5mTokens: usage.cacheWrite5mTokens - from5m,
      cacheWrite1hTokens: usage.cacheWrite1hTokens - from1h,
      uncachedInputTokens: usage.uncachedInputTokens - fromUncached,
    };
  }
  const moved = Math.min(-delta, usage.cacheReadTokens);
  if (!rules.writesBilled)
    return {
      ...usage,
      cacheReadTokens: usage.cacheReadTokens - moved,
      uncachedInputTokens: usage.uncachedInputTokens + moved,
    };
  return ttl === '1h'
    ? { ...usage, cacheReadTokens: usage.cacheReadTokens - moved, cacheWrite1hTokens: usage.cacheWrite1hTokens + moved }
    : {
        ...usage,
        cacheReadTokens: usage.cacheReadTokens - moved,
        cacheWrite5mTokens: usage.cacheWrite5mTokens + moved,
      };
}

const COUNTS = [
  'promptTokens',
  'cacheReadTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'uncachedInputTokens',
  'outputTokens',
] as const;

/** A trace request's usage (with a field beyond the counts, as a request has) whose classes add up to its prompt. */
const usage = classCounts(300_000).map((counts) => ({ ...counts, requestIndex: 7 }));

describe('withReadTokens', () => {
  it('property: the counts of the spread it replaced, only the counts, and the classes still add up to the prompt', () => {
    fc.assert(
      fc.property(
        usage,
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(CACHE_RULES.anthropic, CACHE_RULES.openai),
        fc.constantFrom<'5m' | '1h'>('5m', '1h'),
        (before, read, rules, ttl) => {
          const after = withReadTokens(before, read, rules, ttl);
          const expected = reference(before, read, rules, ttl);
          expect(Object.keys(after)).toEqual([...COUNTS]);
          for (const key of COUNTS) expect(after[key]).toBe(expected[key]);
          expect(
            after.cacheReadTokens + after.cacheWrite5mTokens + after.cacheWrite1hTokens + after.uncachedInputTokens,
          ).toBe(after.promptTokens);
        },
      ),
    );
  });
});
