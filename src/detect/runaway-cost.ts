/**
 * Runaway cost (replay.md §9): the session's spend far beyond what it costs under the default
 * target, with a context that outgrew the target (the 48.1M case, engine.md §9.2: a context that
 * reached 270K on a 968K usable window and never compacted). A session that is dear for another
 * reason while its context stays under the target (a cache bust) is left to that reason's flag,
 * so one cause is not reported twice.
 */
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { stakeFromCosts, worthFlagging } from './stake.js';
import { ceilingTokens, completedCompactions, mainRequests, peakPromptTokens, windowClause } from './target-ceiling.js';
import { requestsCost, rowsCost } from './usage-cost.js';
import { plural, times, tokens, usd, usdNumber } from './wording.js';

function promptTotal(rows: readonly { readonly kind: string; readonly promptTokens: number }[]): number {
  let total = 0;
  for (const row of rows) if (row.kind !== 'rejected_overflow') total += row.promptTokens;
  return total;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, baseline, prices, thresholds } = input;
  if (trace.scenario === baseline.scenario || trace.requests.length === 0) return null;
  const ceiling = ceilingTokens(trace, thresholds);
  const peak = peakPromptTokens(trace);
  if (peak <= ceiling) return null;
  const cost = rowsCost(prices, trace.rows, null);
  const baselineCost = rowsCost(prices, baseline.rows, null);
  const priced = cost.unpriced === 0 && baselineCost.unpriced === 0 && baselineCost.picoUsd > 0n;
  const promptTokens = promptTotal(trace.rows);
  const baselinePromptTokens = promptTotal(baseline.rows);
  // Unpriced models still show a runaway: compare prompt tokens instead of dollars.
  const ratio = priced
    ? Number(cost.picoUsd) / Number(baselineCost.picoUsd)
    : baselinePromptTokens > 0
      ? promptTokens / baselinePromptTokens
      : 0;
  if (ratio < thresholds.runawayCostRatio) return null;
  const stake = stakeFromCosts(cost, baselineCost, baseline.scenario);
  if (!worthFlagging(stake, thresholds)) return null;

  const measured = trace.requests.some((request) => request.basis === 'measured');
  const bill = measured ? requestsCost(prices, trace.requests, null) : null;
  const compactions = completedCompactions(trace);
  const requests = mainRequests(trace).length;
  const spend = priced
    ? `spend ${usd(cost.picoUsd)} is ${times(ratio)} the ${usd(baselineCost.picoUsd)} of ${baseline.scenario}`
    : `${tokens(promptTokens)} prompt tokens are ${times(ratio)} the ${tokens(baselinePromptTokens)} of ${baseline.scenario} (unpriced model)`;
  return {
    kind: 'runaway-cost',
    severity: ratio >= thresholds.runawayCriticalRatio ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: measured ? 'measured' : 'simulated',
    requests: { first: 0, last: trace.requestCount - 1 },
    evidence: {
      costUsd: priced ? usdNumber(cost.picoUsd) : null,
      baselineCostUsd: priced ? usdNumber(baselineCost.picoUsd) : null,
      costRatio: ratio,
      billUsd: bill === null || bill.unpriced > 0 ? null : usdNumber(bill.picoUsd),
      promptTokens,
      baselinePromptTokens,
      peakContextTokens: peak,
      targetTokens: ceiling,
      usableWindowTokens: trace.usableWindowTokens,
      compactions,
      requests,
      userMessages: trace.userMessages,
    },
    summary:
      `${spend}: context ${tokens(peak)}${windowClause(trace, tokens)}, ${plural(compactions, 'compaction')}, ` +
      `${plural(requests, 'request')}, ${tokens(promptTokens)} prompt tokens for ${plural(trace.userMessages, 'user message')}`,
    stake,
  };
}

export const runawayCost: Detector = { kind: 'runaway-cost', detect };
