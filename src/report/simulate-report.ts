/**
 * The `simulate` report: one object built from the cost tables' SQL reports (replay.md §8), then
 * rendered as JSON (the shape of replay.md §8 and the README) or as terminal tables
 * (`simulate-text.ts`). No arithmetic on money here beyond formatting: every cost and saving comes
 * from SQL.
 */
import type { CostTotals, Fidelity, Money, ScenarioSaving, SessionCost } from '../cost/reports.js';
import { MEASURED_SCENARIO } from '../cost/rows.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import { poorFidelityReasons } from '../simulate/fidelity.js';
import { formatPicoUsd } from '../cost/money.js';

/** The first-order counterfactual, printed once in every report (replay.md §4). */
export const ASSUMPTION =
  'First-order counterfactual: the agent is assumed to produce the same items in the same order under every policy; only the context each request carries changes. Output tokens are the recorded ones.';

export type UsageTotals = {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
  /** Exact decimal USD; null when nothing could be priced; see `unpricedRequests`. */
  readonly costUsd: string | null;
  /** False when some requests are unpriced (the cost leaves them out). */
  readonly costComplete: boolean;
  readonly unpricedRequests: number;
};

export type ScenarioResult = UsageTotals & {
  readonly scenario: string;
  /** Against the simulated `recorded` scenario: tokens, exact decimal USD, percent. */
  readonly savingVsRecorded: {
    readonly promptTokens: number | null;
    readonly costUsd: string | null;
    readonly pct: number | null;
  };
  readonly compactions: number;
  readonly blockedCompactions: number;
  /** Overflowing requests the provider rejected (the same name as in `tune --json`). */
  readonly rejectedOverflows: number;
  readonly failedTurns: number;
  readonly summarizeRequests: number;
  readonly peakContextTokens: number;
  /** Flags raised under this scenario (per session; `cachecost flags` gives the evidence and dollars). */
  readonly flags: readonly string[];
};

export type SessionReport = {
  readonly sessionId: string;
  readonly source: string;
  readonly model: string;
  readonly recordedPolicy: string;
  readonly charsPerToken: number;
  readonly staticBlockTokens: number;
  /** The bill: the log's measured usage, priced. */
  readonly recorded: UsageTotals & { readonly requests: number };
  readonly fidelity: {
    /** Requests the replay models and the fidelity compares (`isModelledRequest`); 0 = n/a. */
    readonly modelledRequests: number;
    readonly promptTokensErrorPct: number | null;
    readonly costErrorPct: number | null;
    readonly medianRequestErrorPct: number | null;
    readonly medianCacheReadErrorPct: number | null;
    readonly note: string | null;
  };
  readonly results: readonly ScenarioResult[];
};

export type SimulateReport = {
  readonly assumption: string;
  readonly scenarios: ReadonlyArray<{
    readonly name: string;
    readonly family: string;
    readonly params: Scenario['params'];
  }>;
  readonly sessions: readonly SessionReport[];
  readonly totals: {
    readonly sessions: number;
    readonly recorded: UsageTotals & { readonly requests: number };
    readonly results: readonly ScenarioResult[];
  };
  readonly issues: readonly IngestIssue[];
};

/** What the CLI knows of each session beyond the tables. */
export type SessionFacts = {
  readonly sessionId: string;
  readonly model: string;
  readonly recordedPolicy: string;
  readonly charsPerToken: number;
  readonly staticBlockTokens: number;
  readonly fidelityNote: string | null;
};

function usd(money: Money): string | null {
  return money === null ? null : formatPicoUsd(money.picoUsd);
}

function usageOf(totals: CostTotals): UsageTotals {
  return {
    promptTokens: totals.promptTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWrite5mTokens + totals.cacheWrite1hTokens,
    uncachedInputTokens: totals.uncachedInputTokens,
    outputTokens: totals.outputTokens,
    costUsd: usd(totals.cost),
    costComplete: totals.unpricedRequests === 0,
    unpricedRequests: totals.unpricedRequests,
  };
}

const EMPTY_USAGE: UsageTotals = {
  promptTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  uncachedInputTokens: 0,
  outputTokens: 0,
  costUsd: null,
  costComplete: true,
  unpricedRequests: 0,
};

function resultOf(
  cost: CostTotals & { readonly scenario: string; readonly flags?: readonly string[] },
  saving: ScenarioSaving | undefined,
): ScenarioResult {
  return {
    scenario: cost.scenario,
    ...usageOf(cost),
    savingVsRecorded: {
      promptTokens: saving?.vsRecorded.promptTokens ?? null,
      costUsd: usd(saving?.vsRecorded.cost ?? null),
      pct: saving?.vsRecorded.pct ?? null,
    },
    compactions: cost.compactions,
    blockedCompactions: cost.blockedCompactions,
    rejectedOverflows: cost.rejectedOverflows,
    failedTurns: cost.failedTurns,
    summarizeRequests: cost.summarizeRequests,
    peakContextTokens: cost.peakContextTokens,
    flags: cost.flags ?? [],
  };
}

/** The fidelity note, led by the measures past their bounds (all from SQL, replay.md §6). */
function fidelityNoteWithReasons(note: string | null, f: Fidelity | undefined): string | null {
  const reasons = f === undefined ? [] : poorFidelityReasons(f);
  if (reasons.length === 0) return note;
  const poor = `poor: ${reasons.join(', ')}`;
  return note === null ? poor : `${poor}; ${note}`;
}

/** Assembles the report from the SQL reports, in the scenarios' order and the sessions' order. */
export function buildSimulateReport(input: {
  readonly scenarios: readonly Scenario[];
  readonly facts: readonly SessionFacts[];
  readonly sessionCosts: readonly SessionCost[];
  readonly sessionSavings: readonly ScenarioSaving[];
  readonly scenarioCosts: readonly (CostTotals & { readonly scenario: string })[];
  readonly scenarioSavings: readonly ScenarioSaving[];
  readonly fidelity: readonly Fidelity[];
  readonly issues: readonly IngestIssue[];
}): SimulateReport {
  const key = (sessionId: string | null, scenario: string) => `${sessionId ?? ''}\u0000${scenario}`;
  const costs = new Map(input.sessionCosts.map((c) => [key(c.sessionId, c.scenario), c]));
  const savings = new Map(input.sessionSavings.map((s) => [key(s.sessionId, s.scenario), s]));
  const fidelity = new Map(input.fidelity.map((f) => [f.sessionId, f]));
  const sessions: SessionReport[] = input.facts.map((facts) => {
    const measured = costs.get(key(facts.sessionId, MEASURED_SCENARIO));
    const f = fidelity.get(facts.sessionId);
    const first = input.sessionCosts.find((c) => c.sessionId === facts.sessionId);
    return {
      sessionId: facts.sessionId,
      source: first?.source ?? '',
      model: facts.model,
      recordedPolicy: facts.recordedPolicy,
      charsPerToken: facts.charsPerToken,
      staticBlockTokens: facts.staticBlockTokens,
      recorded: { ...(measured === undefined ? EMPTY_USAGE : usageOf(measured)), requests: measured?.requests ?? 0 },
      fidelity: {
        modelledRequests: f?.matchedRequests ?? 0,
        promptTokensErrorPct: f?.promptTokensErrorPct ?? null,
        costErrorPct: f?.costErrorPct ?? null,
        medianRequestErrorPct: f?.medianRequestErrorPct ?? null,
        medianCacheReadErrorPct: f?.medianCacheReadErrorPct ?? null,
        note: fidelityNoteWithReasons(facts.fidelityNote, f),
      },
      results: input.scenarios.flatMap((scenario) => {
        const cost = costs.get(key(facts.sessionId, scenario.name));
        return cost === undefined ? [] : [resultOf(cost, savings.get(key(facts.sessionId, scenario.name)))];
      }),
    };
  });
  const totalCosts = new Map(input.scenarioCosts.map((c) => [c.scenario, c]));
  const totalSavings = new Map(input.scenarioSavings.map((s) => [s.scenario, s]));
  const measuredTotal = totalCosts.get(MEASURED_SCENARIO);
  return {
    assumption: ASSUMPTION,
    scenarios: input.scenarios.map((s) => ({ name: s.name, family: s.family, params: s.params })),
    sessions,
    totals: {
      sessions: sessions.length,
      recorded: {
        ...(measuredTotal === undefined ? EMPTY_USAGE : usageOf(measuredTotal)),
        requests: measuredTotal?.requests ?? 0,
      },
      results: input.scenarios.flatMap((scenario) => {
        const cost = totalCosts.get(scenario.name);
        return cost === undefined ? [] : [resultOf(cost, totalSavings.get(scenario.name))];
      }),
    },
    issues: input.issues,
  };
}
