/**
 * Compaction storm (replay.md §9): compaction after compaction that frees almost nothing, the
 * "50+ consecutive compaction failures" case, and the "15 compactions in 31 turns" bench run
 * that made FreeCode add its post-compaction hold (engine.md §4.4): a compaction cannot shrink
 * what it does not summarize (the system block, the preserved turns), so it re-fires. Overflow
 * compactions belong to the non-converging-overflow flag and hook-blocked attempts to the
 * blocked-hook storm, so neither is counted here.
 *
 * Dollars at stake: what the storm itself bought, the summarizer calls and the cache re-writes
 * right after each low-progress compaction (re-priced with the read an unchanged prefix gives).
 */
import type { PriceTable } from '../cost/index.js';
import { cachedPrefixTokens, expectedReadTokens, withReadTokens } from './cache-prefix.js';
import type { Detector, DetectorInput } from './detector.js';
import type { Flag, Stake } from './flag.js';
import { clampRequestIndex, completedCompactions, mainRequests } from './target-ceiling.js';
import type { Trace, TraceCompaction } from './trace.js';
import type { CostSum } from './usage-cost.js';
import { addCost, usageCostPicoUsd, ZERO_COST } from './usage-cost.js';
import { percent, plural, tokens } from './wording.js';

/** Percentage of the prompt a compaction freed; null when the log does not tell. */
export function progressPct(compaction: TraceCompaction): number | null {
  if (compaction.outcome === 'nothing-to-compact') return 0;
  const provider =
    compaction.promptTokensBefore !== null &&
    compaction.promptTokensAfter !== null &&
    compaction.promptTokensBefore > 0;
  if (provider)
    return ((compaction.promptTokensBefore - compaction.promptTokensAfter) / compaction.promptTokensBefore) * 100;
  const estimate =
    compaction.estimateTokensBefore !== null &&
    compaction.estimateTokensAfter !== null &&
    compaction.estimateTokensBefore > 0;
  if (estimate)
    return ((compaction.estimateTokensBefore - compaction.estimateTokensAfter) / compaction.estimateTokensBefore) * 100;
  return null;
}

/** Runs of consecutive low-progress attempts; an attempt of unknown progress ends a run. */
function lowProgressRuns(attempts: readonly TraceCompaction[], minProgressPct: number): TraceCompaction[][] {
  const runs: TraceCompaction[][] = [];
  let current: TraceCompaction[] = [];
  for (const attempt of attempts) {
    const progress = progressPct(attempt);
    if (progress !== null && progress < minProgressPct) {
      current.push(attempt);
      continue;
    }
    if (current.length > 0) runs.push(current);
    current = [];
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function stormCost(input: DetectorInput, storm: readonly TraceCompaction[]): Stake {
  const { trace, prices, cacheRules } = input;
  const points = new Set(storm.map((compaction) => compaction.requestIndex));
  let cost: CostSum = ZERO_COST;
  for (const row of trace.rows) {
    if (row.kind === 'summarize' && points.has(row.requestIndex))
      cost = addCost(cost, usageCostPicoUsd(prices, row.model, row.timestampMs, row, 'summarize'));
  }
  cost = addRewrites(prices, trace, points, cacheRules, cost);
  const against = 'no compaction at those points (their summarizer calls and cache re-writes)';
  return cost.unpriced > 0 ? { kind: 'unpriced', against } : { kind: 'priced', picoUsd: cost.picoUsd, against };
}

function addRewrites(
  prices: PriceTable,
  trace: Trace,
  points: ReadonlySet<number>,
  cacheRules: DetectorInput['cacheRules'],
  start: CostSum,
): CostSum {
  let cost = start;
  const requests = mainRequests(trace);
  for (let i = 1; i < requests.length; i++) {
    const request = requests[i];
    const previous = requests[i - 1];
    if (
      request === undefined ||
      previous === undefined ||
      !request.compactionBefore ||
      !points.has(request.requestIndex)
    )
      continue;
    const rules = cacheRules(request.model);
    const stable = expectedReadTokens(
      cachedPrefixTokens(previous, cacheRules(previous.model)),
      request.promptTokens,
      rules,
    );
    if (stable <= request.cacheReadTokens) continue;
    const actual = usageCostPicoUsd(prices, request.model, request.timestampMs, request);
    const kept = usageCostPicoUsd(
      prices,
      request.model,
      request.timestampMs,
      withReadTokens(request, stable, rules, '5m'),
    );
    cost = addCost(cost, actual === null || kept === null ? null : actual - kept);
  }
  return cost;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, thresholds } = input;
  const attempts = trace.compactions.filter(
    (compaction) => compaction.outcome !== 'blocked' && compaction.trigger !== 'overflow',
  );
  const storms = lowProgressRuns(attempts, thresholds.stormMinProgressPct).filter(
    (run) => run.length >= thresholds.stormMinCompactions,
  );
  if (storms.length === 0) return null;
  const all = storms.flat();
  const longest = Math.max(...storms.map((storm) => storm.length));
  const progress = all.map((compaction) => progressPct(compaction) ?? 0).sort((a, b) => a - b);
  const medianProgress = progress[Math.floor((progress.length - 1) / 2)] ?? 0;
  const first = all[0];
  const last = all[all.length - 1];
  if (first === undefined || last === undefined) return null;
  const biggest = Math.max(...all.map((compaction) => compaction.promptTokensBefore ?? 0));
  const failed = all.filter((compaction) => compaction.outcome === 'nothing-to-compact').length;
  const requests = mainRequests(trace).length;
  return {
    kind: 'compaction-storm',
    severity: longest >= thresholds.stormCriticalCompactions ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: trace.scenario === 'recorded' ? 'measured' : 'simulated',
    requests: {
      first: clampRequestIndex(trace, first.requestIndex),
      last: clampRequestIndex(trace, last.requestIndex),
    },
    evidence: {
      lowProgressCompactions: all.length,
      longestRun: longest,
      runs: storms.length,
      medianProgressPct: medianProgress,
      nothingToCompact: failed,
      largestContextTokens: biggest > 0 ? biggest : null,
      compactions: completedCompactions(trace),
      requests,
    },
    summary:
      `${plural(all.length, 'compaction')} in ${plural(storms.length, 'run')} (longest ${longest} in a row) each freed less than ` +
      `${thresholds.stormMinProgressPct}% of the prompt (median ${percent(medianProgress)}${biggest > 0 ? `, contexts up to ${tokens(biggest)}` : ''}); ` +
      `${plural(completedCompactions(trace), 'compaction')} in ${plural(requests, 'request')}`,
    stake: stormCost(input, all),
  };
}

export const compactionStorm: Detector = { kind: 'compaction-storm', detect };
