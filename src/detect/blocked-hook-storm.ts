/**
 * Blocked-hook storm (replay.md §9): a PreCompact hook refusing compaction again and again while
 * the context keeps growing. FreeCode retries a blocked compaction only after the context grew
 * `BLOCKED_RETRY_GROWTH_TOKENS = 5,000` (engine.md §4.4), but that hold lives in a per-message
 * `MemoryService` and resets at every user message (engine.md §13.8), so the hook can block
 * again before the guard would allow: those early re-blocks are counted in the evidence.
 *
 * Dollars at stake: against the default-target scenario replayed with the hook allowing. The stake
 * decides nothing (the flag is raised whatever it is): `detectSessionFlagKinds` relies on that to
 * leave that replay out.
 */
import type { Detector, DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { stakeAgainstScenario } from './stake.js';
import { ceilingTokens, clampRequestIndex, mainRequests, peakPromptTokens } from './target-ceiling.js';
import type { TraceCompaction, TraceRequest } from './trace.js';
import { integer, plural, tokens } from './wording.js';

/** Runs of consecutive blocked attempts with no completed compaction between them. */
function blockRuns(compactions: readonly TraceCompaction[]): TraceCompaction[][] {
  const runs: TraceCompaction[][] = [];
  let current: TraceCompaction[] = [];
  for (const compaction of compactions) {
    if (compaction.outcome === 'blocked') {
      current.push(compaction);
    } else if (compaction.outcome === 'compacted') {
      if (current.length > 0) runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** The context FreeCode measured when it decided to compact: the last main request's prompt before the attempt. */
function contextAt(requests: readonly TraceRequest[], requestIndex: number): number | null {
  let prompt: number | null = null;
  for (const request of requests) {
    if (request.requestIndex >= requestIndex) break;
    prompt = request.promptTokens;
  }
  return prompt;
}

function detect(input: DetectorInput): Flag | null {
  const { trace, baseline, hookAllowedBaseline, prices, thresholds } = input;
  const storms = blockRuns(trace.compactions).filter((run) => run.length >= thresholds.hookStormMinBlocks);
  if (storms.length === 0) return null;
  const requests = mainRequests(trace);
  const blocks = storms.flat();
  const counts = blocks.map((block) => contextAt(requests, block.requestIndex));
  let early = 0;
  for (const storm of storms) {
    let previous: number | null = null;
    for (const block of storm) {
      const count = contextAt(requests, block.requestIndex);
      if (previous !== null && count !== null && count < previous + thresholds.holdGrowthTokens) early += 1;
      previous = count;
    }
  }
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  if (first === undefined || last === undefined) return null;
  // The hook's cost runs from its first refusal to the next compaction that went through, or the end.
  const nextCompaction = trace.compactions.find(
    (compaction) => compaction.outcome === 'compacted' && compaction.requestIndex > last.requestIndex,
  );
  const range = {
    first: clampRequestIndex(trace, first.requestIndex),
    last: clampRequestIndex(
      trace,
      nextCompaction === undefined ? trace.requestCount - 1 : nextCompaction.requestIndex - 1,
    ),
  };
  const firstCount = counts[0] ?? null;
  const lastCount = counts[counts.length - 1] ?? null;
  const peak = peakPromptTokens(trace);
  const ceiling = ceilingTokens(trace, thresholds);
  const growth =
    firstCount !== null && lastCount !== null
      ? ` while the context grew ${tokens(firstCount)} → ${tokens(lastCount)}`
      : '';
  const earlyClause =
    early > 0
      ? `; ${plural(early, 'block')} came less than ${integer(thresholds.holdGrowthTokens)} tokens after the previous one (FreeCode's hold allows that only once a new user message resets it)`
      : '';
  return {
    kind: 'blocked-hook-storm',
    severity: peak >= thresholds.criticalContextMultiple * ceiling ? 'critical' : 'warning',
    sessionId: trace.sessionId,
    scenario: trace.scenario,
    basis: trace.scenario === 'recorded' ? 'measured' : 'simulated',
    requests: range,
    evidence: {
      blockedCompactions: blocks.length,
      longestRun: Math.max(...storms.map((storm) => storm.length)),
      earlyReblocks: early,
      holdGrowthTokens: thresholds.holdGrowthTokens,
      contextAtFirstBlockTokens: firstCount,
      contextAtLastBlockTokens: lastCount,
      peakContextTokens: peak,
      targetTokens: ceiling,
    },
    summary: `the PreCompact hook refused ${plural(blocks.length, 'compaction')} with none completing in between${growth}${earlyClause}`,
    stake: stakeAgainstScenario(prices, trace, hookAllowedBaseline() ?? baseline, range),
  };
}

export const blockedHookStorm: Detector = { kind: 'blocked-hook-storm', detect };
