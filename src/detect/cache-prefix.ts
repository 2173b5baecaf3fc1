/**
 * What a stable prompt cache would have served: the prefix a request leaves in the provider's
 * cache, what the next request should read from it, and why a read may legitimately fall short
 * (compaction, model switch, TTL expiry: FreeCode's own miss detector, engine.md §9.3). Provider
 * rules come from the cache-rule data (`provider/cache-rules.ts`), not from branches here.
 */
import type { CacheRules } from '../provider/cache-rules.js';
import type { TraceRequest, TraceUsage } from './trace.js';

/** Tokens a request leaves cached for the next one: what it read and wrote, or its whole prompt under automatic caching. */
export function cachedPrefixTokens(request: TraceUsage, rules: CacheRules): number {
  if (rules.writesBilled) return request.cacheReadTokens + request.cacheWrite5mTokens + request.cacheWrite1hTokens;
  return request.promptTokens >= rules.minCacheableTokens ? request.promptTokens : 0;
}

/** The read an unchanged prefix gives a prompt: the shorter of the two, in the provider's steps, 0 below its minimum. */
export function expectedReadTokens(prefixTokens: number, promptTokens: number, rules: CacheRules): number {
  const tokens = Math.min(prefixTokens, promptTokens);
  if (tokens < rules.minCacheableTokens) return 0;
  return Math.floor(tokens / rules.granularityTokens) * rules.granularityTokens;
}

/** Token counts by cache class, written out (a spread of a trace request copies its other fields too, and takes V8's slow clone path). */
function counts(
  promptTokens: number,
  cacheReadTokens: number,
  cacheWrite5mTokens: number,
  cacheWrite1hTokens: number,
  uncachedInputTokens: number,
  outputTokens: number,
): TraceUsage {
  return { promptTokens, cacheReadTokens, cacheWrite5mTokens, cacheWrite1hTokens, uncachedInputTokens, outputTokens };
}

/**
 * The same request's counts with `readTokens` read from cache: tokens read more come out of the 5m
 * writes, then the 1h writes, then uncached input; tokens read less become writes at `ttl`
 * (uncached input where the provider does not bill writes). The prompt is unchanged.
 */
export function withReadTokens(usage: TraceUsage, readTokens: number, rules: CacheRules, ttl: '5m' | '1h'): TraceUsage {
  const { promptTokens, cacheReadTokens, cacheWrite5mTokens, cacheWrite1hTokens, uncachedInputTokens, outputTokens } =
    usage;
  const delta = readTokens - cacheReadTokens;
  if (delta >= 0) {
    let rest = delta;
    const from5m = Math.min(rest, cacheWrite5mTokens);
    rest -= from5m;
    const from1h = Math.min(rest, cacheWrite1hTokens);
    rest -= from1h;
    const fromUncached = Math.min(rest, uncachedInputTokens);
    return counts(
      promptTokens,
      cacheReadTokens + from5m + from1h + fromUncached,
      cacheWrite5mTokens - from5m,
      cacheWrite1hTokens - from1h,
      uncachedInputTokens - fromUncached,
      outputTokens,
    );
  }
  const moved = Math.min(-delta, cacheReadTokens);
  if (!rules.writesBilled)
    return counts(
      promptTokens,
      cacheReadTokens - moved,
      cacheWrite5mTokens,
      cacheWrite1hTokens,
      uncachedInputTokens + moved,
      outputTokens,
    );
  return ttl === '1h'
    ? counts(
        promptTokens,
        cacheReadTokens - moved,
        cacheWrite5mTokens,
        cacheWrite1hTokens + moved,
        uncachedInputTokens,
        outputTokens,
      )
    : counts(
        promptTokens,
        cacheReadTokens - moved,
        cacheWrite5mTokens + moved,
        cacheWrite1hTokens,
        uncachedInputTokens,
        outputTokens,
      );
}

/** Why a read may fall short of the previous prefix without anything being wrong. */
export type ExpectedCause = 'compaction' | 'model-switch' | 'ttl-expiry' | 'unknown-gap';

/** One main-agent request and the one before it, with what an unchanged prefix would have given. */
export type CacheStep = {
  readonly previous: TraceRequest;
  readonly request: TraceRequest;
  readonly rules: CacheRules;
  /** Time since the previous request; null when either has no timestamp. */
  readonly gapMs: number | null;
  readonly expectedReadTokens: number;
  /** Expected read minus actual read (≤ 0 when the cache served at least that). */
  readonly missedTokens: number;
  /** A legitimate reason for a short read, if any. */
  readonly cause: ExpectedCause | null;
};

/**
 * Consecutive main-agent requests as cache steps. `ttlMsOf` is the lifetime the session's
 * entries had (5 minutes unless it wrote 1-hour entries).
 */
export function cacheSteps(
  requests: readonly TraceRequest[],
  rulesOf: (model: string) => CacheRules,
  ttlMsOf: (rules: CacheRules) => number,
): CacheStep[] {
  const steps: CacheStep[] = [];
  let previous: TraceRequest | null = null;
  for (const request of requests) {
    if (!request.main) continue;
    // No cache activity at all: a log that does not count it, or a prompt under the minimum.
    // FreeCode's detector stays silent and drops its baseline (engine.md §9.3); so does this.
    if (request.cacheReadTokens === 0 && request.cacheWrite5mTokens === 0 && request.cacheWrite1hTokens === 0) {
      previous = null;
      continue;
    }
    if (previous !== null) {
      const rules = rulesOf(request.model);
      const expected = expectedReadTokens(
        cachedPrefixTokens(previous, rulesOf(previous.model)),
        request.promptTokens,
        rules,
      );
      const gapMs =
        request.timestampMs === null || previous.timestampMs === null
          ? null
          : request.timestampMs - previous.timestampMs;
      const cause: ExpectedCause | null = request.compactionBefore
        ? 'compaction'
        : request.model !== previous.model
          ? 'model-switch'
          : gapMs === null
            ? 'unknown-gap'
            : gapMs > ttlMsOf(rules)
              ? 'ttl-expiry'
              : null;
      steps.push({
        previous,
        request,
        rules,
        gapMs,
        expectedReadTokens: expected,
        missedTokens: expected - request.cacheReadTokens,
        cause,
      });
    }
    previous = request;
  }
  return steps;
}

/** Whether any request of the trace wrote 1-hour entries (then entries live an hour). */
export function writesOneHour(requests: readonly TraceRequest[]): boolean {
  return requests.some((request) => request.cacheWrite1hTokens > 0);
}

/** The lifetime of the trace's entries under `rules`. */
export function entryTtlMs(rules: CacheRules, oneHour: boolean): number {
  return oneHour && rules.ttl1hMs !== null ? rules.ttl1hMs : rules.ttlMs;
}
