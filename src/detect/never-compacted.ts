/**
 * Never compacted while above target (replay.md §9): a stretch of consecutive requests whose
 * context exceeds the target with no compaction attempt at all, RC1 of engine.md §9.2
 * (fit-only compaction: the trigger sat near a 968K window). A stretch interrupted by a
 * compaction, or by a hook refusing one, is not this flag (a hook storm has its own).
 */
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { stakeAgainstScenario, worthFlagging } from './stake.js';
import { ceilingTokens, completedCompactions, mainRequests, peakPromptTokens, windowClause } from './target-ceiling.js';
import type { TraceRequest } from './trace.js';
import { plural, tokens } from './wording.js';

/** Maximal runs of consecutive main requests above `ceiling` with no compaction attempt before any but the first. */
function stretchesAbove(
  requests: readonly TraceRequest[],
  attempts: readonly number[],
  ceiling: number,
): TraceRequest[][] {
  const stretches: TraceRequest[][] = [];
  let current: TraceRequest[] = [];
  let previousIndex = -1;
  for (const request of requests) {
    const attempted = attempts.some((index) => index > previousIndex && index <= request.requestIndex);
    previousIndex = request.requestIndex;
    if (request.promptTokens <= ceiling || attempted) {
      if (current.length > 0) stretches.push(current);
      current = request.promptTokens > ceiling ? [request] : [];
      continue;
    }
    current.push(request);
  }
  if (current.length > 0) stretches.push(current);
  return stretches;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, baseline, prices, thresholds } = input;
  const ceiling = ceilingTokens(trace, thresholds);
  const requests = mainRequests(trace);
  const attempts = trace.compactions.map((compaction) => compaction.requestIndex);
  const stretches = stretchesAbove(requests, attempts, ceiling).filter(
    (stretch) => stretch.length >= thresholds.neverCompactedMinRequests,
  );
  const first = stretches[0]?.[0];
  const lastStretch = stretches[stretches.length - 1];
  const last = lastStretch?.[lastStretch.length - 1];
  if (first === undefined || last === undefined) return null;
  const flagged = stretches.reduce((sum, stretch) => sum + stretch.length, 0);
  const longest = Math.max(...stretches.map((stretch) => stretch.length));
  const peak = peakPromptTokens(trace);
  const compactions = completedCompactions(trace);
  const range = { first: first.requestIndex, last: last.requestIndex };
  const stake = stakeAgainstScenario(prices, trace, baseline, range);
  if (!worthFlagging(stake, thresholds)) return null;
  return {
    kind: 'never-compacted',
    severity: peak >= thresholds.criticalContextMultiple * ceiling ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: first.basis,
    requests: range,
    evidence: {
      peakContextTokens: peak,
      targetTokens: ceiling,
      usableWindowTokens: trace.usableWindowTokens,
      requestsAboveTarget: flagged,
      longestStretchRequests: longest,
      stretches: stretches.length,
      compactions,
      requests: requests.length,
    },
    summary:
      `context ${tokens(peak)}${windowClause(trace, tokens)} stayed above the ${tokens(ceiling)} target for ${plural(flagged, 'request')} ` +
      `with no compaction attempt (${plural(compactions, 'compaction')} in ${plural(requests.length, 'request')})`,
    stake,
  };
}

export const neverCompacted: Detector = { kind: 'never-compacted', detect };
