/**
 * Non-converging overflow (replay.md §9): in one user turn, the provider refused the prompt as
 * too long, a compaction ran, and it was refused again, or the turn failed outright. FreeCode
 * compacts and re-sends at most `MAX_OVERFLOW_COMPACTIONS = 3` times and re-sends only once per
 * compaction (engine.md §5.4), so a second refusal means the compaction could not bring the
 * context under the window.
 */
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { stakeAgainstScenario } from './stake.js';
import { clampRequestIndex } from './target-ceiling.js';
import { plural, tokens } from './wording.js';

function detect(input: DetectorInput): Flag | null {
  const { trace, baseline, prices, thresholds } = input;
  const rejectionsByTurn = new Map<number, number>();
  for (const rejection of trace.rejections)
    rejectionsByTurn.set(rejection.userTurn, (rejectionsByTurn.get(rejection.userTurn) ?? 0) + 1);
  const failedTurns = new Set(trace.failures.map((failure) => failure.userTurn));
  const turns = new Set(
    [...rejectionsByTurn]
      .filter(([turn, count]) => count >= thresholds.overflowMinRejections || failedTurns.has(turn))
      .map(([turn]) => turn),
  );
  for (const turn of failedTurns) turns.add(turn);
  if (turns.size === 0) return null;

  const rejections = trace.rejections.filter((rejection) => turns.has(rejection.userTurn));
  const failures = trace.failures.filter((failure) => turns.has(failure.userTurn));
  const overflowCompactions = trace.compactions.filter(
    (compaction) => compaction.trigger === 'overflow' && turns.has(compaction.userTurn),
  );
  const indices = [...rejections, ...failures, ...overflowCompactions].map((entry) => entry.requestIndex);
  const range = {
    first: clampRequestIndex(trace, Math.min(...indices)),
    last: clampRequestIndex(trace, Math.max(...indices)),
  };
  const refusedSizes = rejections
    .map((rejection) => rejection.promptTokens)
    .filter((size): size is number => size !== null);
  const largestRefused = refusedSizes.length === 0 ? null : Math.max(...refusedSizes);
  const compacted = overflowCompactions.filter((compaction) => compaction.outcome === 'compacted').length;
  const window = trace.windowTokens === null ? 'the window' : `the ${tokens(trace.windowTokens)} window`;
  const refused = largestRefused === null ? '' : ` (up to ${tokens(largestRefused)})`;
  const outcome =
    failures.length > 0
      ? `${plural(failures.length, 'turn')} failed with the context still over it`
      : 'the context came back under it only after repeated refusals';
  return {
    kind: 'non-converging-overflow',
    severity: failures.length > 0 ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: trace.scenario === 'recorded' ? 'measured' : 'simulated',
    requests: range,
    evidence: {
      rejectedSends: rejections.length,
      overflowCompactions: overflowCompactions.length,
      overflowCompactionsCompleted: compacted,
      failedTurns: failures.length,
      userTurns: turns.size,
      largestRefusedPromptTokens: largestRefused,
      windowTokens: trace.windowTokens,
    },
    summary:
      `${plural(rejections.length, 'send')} refused as over ${window}${refused} in ${plural(turns.size, 'user turn')}: ` +
      `${plural(overflowCompactions.length, 'overflow compaction')} did not converge and ${outcome}`,
    stake: stakeAgainstScenario(prices, trace, baseline, range),
  };
}

export const nonConvergingOverflow: Detector = { kind: 'non-converging-overflow', detect };
