/**
 * One session through every scenario of a sweep (replay.md §10): the `recorded` policy and the
 * token calibration are fitted once (`simulateSession` on `recorded` alone), then each scenario is
 * replayed with them and reduced at once to its totals, so a sweep of hundreds of scenarios holds
 * one session's rows at a time. Pure: everything arrives as arguments.
 */
import type { PriceTable } from '../cost/price-table.js';
import type { Session } from '../session/model.js';
import type { Fidelity } from '../simulate/fidelity.js';
import type { ReplayResult } from '../simulate/replay.js';
import { repriceReplay, replaySession } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import {
  automaticCacheFacts,
  isReplayable,
  preCompactHookBlocks,
  sessionReplayMemo,
  simulateSession,
} from '../simulate/simulate-session.js';
import { measuredRows } from '../simulate/to-rows.js';
import { sessionContentChars, TOOL_LINE_MEMO_MAX_CHARS } from '../simulate/replay-memo.js';
import { EquivalentReplays } from './equivalent-replays.js';
import { modelFactsForSession } from '../simulate/model-facts.js';
import type { ScenarioTotals, TotalsRow } from './scenario-totals.js';
import { sessionTotals } from './scenario-totals.js';

/** Work done for one session, for the benchmark and the progress bar (not part of any report). */
export type SweepStats = {
  /** Scenarios replayed (the recorded fit counts as one). */
  readonly replays: number;
  /** Scenarios whose result was taken from a provably identical replay. */
  readonly reused: number;
  /** Rows (provider requests) the replays produced. */
  readonly replayedRows: number;
};

export type SessionSweep =
  | {
      readonly kind: 'swept';
      readonly sessionId: string;
      /** The session's main model: the group it is reported in. */
      readonly model: string;
      readonly recordedPolicy: string;
      readonly fidelity: Fidelity;
      /** The log's measured usage, priced: the bill. */
      readonly bill: ScenarioTotals;
      /** One entry per scenario, in the sweep's order. */
      readonly results: readonly ScenarioTotals[];
      /** Models of rows that could not be priced (in the bill or any scenario), sorted. */
      readonly unpricedModels: readonly string[];
      readonly stats: SweepStats;
    }
  | { readonly kind: 'skipped'; readonly sessionId: string; readonly reason: string };

export type SweepSessionOptions = {
  readonly prices: PriceTable;
  /** Reuse replays provably identical to another (`equivalent-replays.ts`); off only to test that it changes nothing. */
  readonly reuseEquivalent: boolean;
  /** Called after each scenario with the rows it replayed (0 when reused). */
  readonly onScenario?: (replayedRows: number) => void;
};

/** Indices of `scenarios` grouped by everything but the TTL, groups in order of first appearance. */
function ttlGroups(scenarios: readonly Scenario[]): number[][] {
  const groups = new Map<string, number[]>();
  scenarios.forEach((scenario, index) => {
    const key = JSON.stringify([scenario.family, { ...scenario.params, ttl: null }]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [index]);
    else group.push(index);
  });
  return [...groups.values()];
}

function toTotals(prices: PriceTable, result: ReplayResult, unpricedModels: Set<string>): ScenarioTotals {
  return sessionTotals(prices, result.rows, result.compactions, result.failedTurns, unpricedModels);
}

/** The bill: the measured rows `simulate` inserts as the `measured` scenario, priced the same way. */
function billTotals(prices: PriceTable, session: Session, unpricedModels: Set<string>): ScenarioTotals {
  const rows: TotalsRow[] = measuredRows(session).map((row) => ({
    kind: row.kind,
    model: row.model,
    timestampMs: row.timestamp_ms,
    promptTokens: row.prompt_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWrite5mTokens: row.cache_write_5m_tokens,
    cacheWrite1hTokens: row.cache_write_1h_tokens,
    uncachedInputTokens: row.uncached_input_tokens,
    outputTokens: row.output_tokens,
    contextTokensAfter: row.context_tokens_after,
    compactionBefore: row.compaction_before,
  }));
  return sessionTotals(prices, rows, [], 0, unpricedModels);
}

/**
 * Replays `session` under every scenario (the first must be `recorded`) and returns one totals
 * record per scenario, reusing a replay wherever another is provably identical
 * (`equivalent-replays.ts`); ascending targets, the sweep's order, reuse the most.
 */
export function sweepSession(
  session: Session,
  scenarios: readonly Scenario[],
  options: SweepSessionOptions,
): SessionSweep {
  if (!isReplayable(session)) return { kind: 'skipped', sessionId: session.id, reason: 'no per-request data' };
  const recordedScenario = scenarios[0];
  if (recordedScenario?.family !== 'recorded') throw new Error('invariant: a sweep starts with the recorded scenario');
  const { prices } = options;
  const modelFacts = modelFactsForSession(prices, session);
  // One memo for every replay of the session: each scenario turns the same items into the same
  // messages, tool lines and renders, and summarizes the same contents (`ReplayMemo`), which a memo
  // per replay made again each time (a steady pass over the FreeCode benchmark corpus −15–25 %).
  // Not for a session too large to keep its tool lines (`TOOL_LINE_MEMO_MAX_CHARS`): one memo
  // would then hold the renders of every scenario's pruned histories at once; each replay keeps
  // its own, let go with it, as before.
  const memo =
    sessionContentChars(session) <= TOOL_LINE_MEMO_MAX_CHARS
      ? sessionReplayMemo(session, { keepSummaries: true })
      : undefined;
  const fit = simulateSession(session, [recordedScenario], { modelFacts, ...(memo === undefined ? {} : { memo }) });
  const recorded = fit.results[0]?.result;
  if (recorded === undefined) throw new Error('invariant: simulateSession returns the recorded result');
  const hookBlocks = preCompactHookBlocks(session);
  const equivalents = new EquivalentReplays(session, fit.recordedPolicy, modelFacts);
  const results: ScenarioTotals[] = [];
  const unpricedModels = new Set<string>();
  let replays = 1;
  let reused = 0;
  let replayedRows = recorded.rows.length;
  results.push(toTotals(prices, recorded, unpricedModels));
  options.onScenario?.(recorded.rows.length);
  // Scenarios that differ only in their TTL share one replay, priced once per TTL: the engine's
  // decisions never read the cache (`repriceReplay`). Each group is swept while its replay is
  // alive, in the order of its first scenario, so at most one kept replay exists at a time.
  const slots: (ScenarioTotals | undefined)[] = new Array<ScenarioTotals | undefined>(scenarios.length - 1);
  for (const group of ttlGroups(scenarios.slice(1))) {
    let kept: ReplayResult | undefined;
    for (const index of group) {
      const scenario = scenarios[index + 1];
      if (scenario === undefined) continue;
      const equivalent = options.reuseEquivalent ? equivalents.lookup(scenario) : undefined;
      if (equivalent !== undefined) {
        slots[index] = equivalent;
        reused += 1;
        options.onScenario?.(0);
        continue;
      }
      let result: ReplayResult;
      if (kept !== undefined && options.reuseEquivalent) {
        result = repriceReplay(
          kept,
          { ttl: scenario.params.ttl, fromLog: scenario.params.ttlFromLog },
          fit.warmStaticTokens,
        );
        reused += 1;
        options.onScenario?.(0);
      } else {
        result = replaySession({
          session,
          scenario,
          calibration: fit.calibration,
          recordedPolicy: fit.recordedPolicy,
          modelFacts,
          preCompactHookBlocks: hookBlocks,
          warmStaticTokens: fit.warmStaticTokens,
          ...automaticCacheFacts(fit),
          keepPrompts: group.length > 1,
          ...(memo === undefined ? {} : { memo }),
        });
        kept = result;
        replays += 1;
        replayedRows += result.rows.length;
        options.onScenario?.(result.rows.length);
      }
      const totals = toTotals(prices, result, unpricedModels);
      slots[index] = totals;
      if (options.reuseEquivalent) equivalents.record(scenario, result, totals);
    }
  }
  for (const totals of slots) {
    if (totals === undefined) throw new Error('invariant: every scenario of a sweep has totals');
    results.push(totals);
  }
  return {
    kind: 'swept',
    sessionId: session.id,
    model: fit.model,
    recordedPolicy: fit.recordedPolicy.basis,
    fidelity: fit.fidelity,
    bill: billTotals(prices, session, unpricedModels),
    results,
    unpricedModels: [...unpricedModels].sort(),
    stats: { replays, reused, replayedRows },
  };
}
