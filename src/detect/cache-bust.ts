/**
 * Cache bust (replay.md §9): cache reads that collapse below what the previous request left in
 * cache with no compaction, TTL expiry or model switch to explain them, i.e. the prompt's prefix
 * was rewritten. This is FreeCode's own miss detector (engine.md §9.3): a miss under 1,024 tokens
 * is noise, and a miss the next request recovers from (it reads the old prefix again) is a
 * provider blip, not a bust. The pattern it finds is RC4's sliding pruning and RC8's rewritten
 * system prompt: "cache reads frozen at the system prefix while the context grows".
 *
 * Dollars at stake, against a stable cache, computed explicitly: each collapsed request re-priced
 * with the read an unchanged prefix would have given (the missing tokens move from cache writes,
 * or uncached input, to cache reads); nothing else changes.
 */
import type { CacheStep } from './cache-prefix.js';
import { cacheSteps, entryTtlMs, withReadTokens, writesOneHour } from './cache-prefix.js';
import type { Detector, DetectorInput } from './detector.js';
import type { Flag, Stake } from './flag.js';
import { worthFlagging } from './stake.js';
import type { CostSum } from './usage-cost.js';
import { addCost, requestsCost, usageCostPicoUsd, ZERO_COST } from './usage-cost.js';
import { plural, tokens } from './wording.js';

/** Steps whose read collapsed without an expected cause and did not recover at the next step. */
export function unexplainedBusts(steps: readonly CacheStep[], minMissTokens: number): CacheStep[] {
  const busts: CacheStep[] = [];
  for (const [i, step] of steps.entries()) {
    const threshold = Math.max(minMissTokens, step.rules.granularityTokens);
    if (step.cause !== null || step.missedTokens < threshold) continue;
    const next = steps[i + 1];
    // FreeCode's detector holds a miss one sample: if the next read is back at the old prefix, it was a blip.
    const recovered =
      next !== undefined && next.cause === null && next.request.cacheReadTokens >= step.expectedReadTokens;
    if (!recovered) busts.push(step);
  }
  return busts;
}

function stableCacheStake(input: DetectorInput, busts: readonly CacheStep[]): Stake {
  const { prices } = input;
  let cost: CostSum = ZERO_COST;
  for (const step of busts) {
    const { request } = step;
    const ttl = request.cacheWrite1hTokens > 0 ? '1h' : '5m';
    const actual = usageCostPicoUsd(prices, request.model, request.timestampMs, request);
    const stable = usageCostPicoUsd(
      prices,
      request.model,
      request.timestampMs,
      withReadTokens(request, step.expectedReadTokens, step.rules, ttl),
    );
    cost = addCost(cost, actual === null || stable === null ? null : actual - stable);
  }
  const against = 'a stable cache (each collapsed request re-priced with the read an unchanged prefix gives)';
  return cost.unpriced > 0 ? { kind: 'unpriced', against } : { kind: 'priced', picoUsd: cost.picoUsd, against };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, cacheRules, thresholds } = input;
  const oneHour = writesOneHour(trace.requests);
  const steps = cacheSteps(trace.requests, cacheRules, (rules) => entryTtlMs(rules, oneHour));
  const busts = unexplainedBusts(steps, thresholds.cacheBustMinMissTokens);
  if (busts.length < thresholds.cacheBustMinRequests) return null;
  const first = busts[0];
  const last = busts[busts.length - 1];
  if (first === undefined || last === undefined) return null;
  const missed = busts.reduce((sum, step) => sum + step.missedTokens, 0);
  const medianRead = median(busts.map((step) => step.request.cacheReadTokens));
  const examined = steps.length;
  const stake = stableCacheStake(input, busts);
  if (!worthFlagging(stake, thresholds)) return null;
  const spend = requestsCost(input.prices, trace.requests, null);
  const costShare =
    stake.kind === 'priced' && spend.unpriced === 0 && spend.picoUsd > 0n
      ? Number(stake.picoUsd) / Number(spend.picoUsd)
      : null;
  return {
    kind: 'cache-bust',
    severity: costShare !== null && costShare >= thresholds.cacheBustCriticalCostShare ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: first.request.basis,
    requests: { first: first.request.requestIndex, last: last.request.requestIndex },
    evidence: {
      collapsedRequests: busts.length,
      examinedRequests: examined,
      missedReadTokens: missed,
      medianReadTokens: medianRead,
      firstPromptTokens: first.request.promptTokens,
      lastPromptTokens: last.request.promptTokens,
      shareOfSpend: costShare,
    },
    summary:
      `cache reads collapsed on ${busts.length} of ${plural(examined, 'request')} with no compaction, TTL expiry or model switch to explain it: ` +
      `median read ${tokens(medianRead)} while the prompt went ${tokens(first.request.promptTokens)} → ${tokens(last.request.promptTokens)}, ` +
      `${tokens(missed)} tokens re-written instead of read (a rewritten prefix)`,
    stake,
  };
}

export const cacheBust: Detector = { kind: 'cache-bust', detect };
