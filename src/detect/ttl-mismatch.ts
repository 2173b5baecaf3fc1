/**
 * TTL mismatch (replay.md §9): the prompt cache's lifetime does not fit the session's rhythm.
 * Either 1-hour writes (2× the input price, against 1.25× for 5 minutes: pricing.md) where the
 * requests come seconds apart, so the hour is never used; or 5-minute writes followed by idle
 * gaps longer than 5 minutes (but under an hour), each of which re-writes the whole context.
 * Only providers that offer both lifetimes and bill writes are examined (the cache-rule data).
 *
 * Dollars at stake, computed explicitly: every request of the session re-priced under the other
 * lifetime: writes billed at its rate, and at each gap between 5 minutes and an hour, the read an
 * hour-long entry would have given (5m → 1h) or the cold start a 5-minute entry would have had
 * (1h → 5m). The flag is raised only when the other lifetime is cheaper.
 */
import type { CacheStep } from './cache-prefix.js';
import { cacheSteps, entryTtlMs, withReadTokens, writesOneHour } from './cache-prefix.js';
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import type { TraceRequest, TraceUsage } from './trace.js';
import type { CostSum } from './usage-cost.js';
import { addCost, usageCostPicoUsd, ZERO_COST } from './usage-cost.js';
import { plural, tokens, usd, usdNumber } from './wording.js';

type Direction = { readonly from: '5m' | '1h'; readonly to: '5m' | '1h' };

/** A gap the other lifetime changes: longer than the short TTL, within the long one. */
function isMidGap(step: CacheStep): boolean {
  const longTtl = step.rules.ttl1hMs;
  return (
    step.gapMs !== null &&
    longTtl !== null &&
    step.gapMs > step.rules.ttlMs &&
    step.gapMs <= longTtl &&
    step.request.model === step.previous.model &&
    !step.request.compactionBefore
  );
}

/** The counts with every write at the other lifetime (written out: a spread of a trace request copies its other fields too). */
function switchTtl(usage: TraceUsage, to: '5m' | '1h'): TraceUsage {
  const writes = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  return {
    promptTokens: usage.promptTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWrite5mTokens: to === '1h' ? 0 : writes,
    cacheWrite1hTokens: to === '1h' ? writes : 0,
    uncachedInputTokens: usage.uncachedInputTokens,
    outputTokens: usage.outputTokens,
  };
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1_000)} s`;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, cacheRules, prices, thresholds } = input;
  const eligible = (request: TraceRequest): boolean => {
    const rules = cacheRules(request.model);
    return rules.writesBilled && rules.ttl1hMs !== null;
  };
  const requests = trace.requests.filter(eligible);
  if (requests.length === 0) return null;
  const oneHour = writesOneHour(requests);
  const direction: Direction = oneHour ? { from: '1h', to: '5m' } : { from: '5m', to: '1h' };
  const steps = cacheSteps(requests, cacheRules, (rules) => entryTtlMs(rules, oneHour));
  // 5m → 1h: gaps whose read collapsed (expired). 1h → 5m: gaps the hour-long entries bridged.
  const changed = steps.filter(
    (step) =>
      isMidGap(step) &&
      (direction.to === '1h'
        ? step.missedTokens >= thresholds.cacheBustMinMissTokens
        : step.request.cacheReadTokens > 0),
  );
  if (direction.to === '1h' && changed.length < thresholds.ttlMinGaps) return null;
  const changedAt = new Map(changed.map((step) => [step.request.requestIndex, step]));

  let actual: CostSum = ZERO_COST;
  let alternative: CostSum = ZERO_COST;
  for (const request of requests) {
    actual = addCost(actual, usageCostPicoUsd(prices, request.model, request.timestampMs, request));
    let other = switchTtl(request, direction.to);
    const step = request.main ? changedAt.get(request.requestIndex) : undefined;
    // An hour-long entry serves the whole old prefix; with 5-minute entries the gap leaves nothing.
    if (step !== undefined)
      other = withReadTokens(other, direction.to === '1h' ? step.expectedReadTokens : 0, step.rules, direction.to);
    alternative = addCost(alternative, usageCostPicoUsd(prices, request.model, request.timestampMs, other));
  }
  const priced = actual.unpriced === 0 && alternative.unpriced === 0;
  const savingPicoUsd = actual.picoUsd - alternative.picoUsd;
  if (priced && (savingPicoUsd <= 0n || (usdNumber(savingPicoUsd) ?? 0) < thresholds.minUsdAtStake)) return null;
  if (!priced && direction.to === '5m' && changed.length > 0) return null;

  const gaps = steps
    .map((step) => step.gapMs)
    .filter((gap): gap is number => gap !== null)
    .sort((a, b) => a - b);
  const longestGap = gaps[gaps.length - 1] ?? 0;
  const medianGap = gaps[Math.floor((gaps.length - 1) / 2)] ?? 0;
  const writes5m = requests.reduce((sum, request) => sum + request.cacheWrite5mTokens, 0);
  const writes1h = requests.reduce((sum, request) => sum + request.cacheWrite1hTokens, 0);
  const firstChanged = changed[0];
  const lastChanged = changed[changed.length - 1];
  const range =
    direction.to === '1h' && firstChanged !== undefined && lastChanged !== undefined
      ? { first: firstChanged.request.requestIndex, last: lastChanged.request.requestIndex }
      : { first: requests[0]?.requestIndex ?? 0, last: requests[requests.length - 1]?.requestIndex ?? 0 };
  const saving = priced ? `${usd(savingPicoUsd)} less` : 'less (unpriced model: not computed)';
  const summary =
    direction.to === '1h'
      ? `${plural(changed.length, 'idle gap')} between 5 min and 1 h (longest ${seconds(Math.max(...changed.map((step) => step.gapMs ?? 0)))}) expired 5-minute cache entries ` +
        `and re-wrote the context each time; 1-hour writes would have cost ${saving}`
      : `${tokens(writes1h)} tokens written at the 1-hour rate while requests came ${seconds(medianGap)} apart (median; longest ${seconds(longestGap)}, ` +
        `${plural(changed.length, 'gap')} the hour bridged); 5-minute writes would have cost ${saving}`;
  return {
    kind: 'ttl-mismatch',
    severity: 'info',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: requests[0]?.basis ?? 'simulated',
    requests: range,
    evidence: {
      cacheWrite5mTokens: writes5m,
      cacheWrite1hTokens: writes1h,
      gapsChangedByOtherTtl: changed.length,
      medianGapSeconds: Math.round(medianGap / 1_000),
      longestGapSeconds: Math.round(longestGap / 1_000),
      savingUsd: priced ? usdNumber(savingPicoUsd) : null,
    },
    summary,
    stake: priced
      ? {
          kind: 'priced',
          picoUsd: savingPicoUsd,
          against: `${direction.to} cache writes (every request re-priced under that lifetime)`,
        }
      : { kind: 'unpriced', against: `${direction.to} cache writes` },
  };
}

export const ttlMismatch: Detector = { kind: 'ttl-mismatch', detect };
