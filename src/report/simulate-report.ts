/**
 * The `simulate` report: one object built from the cost tables' SQL reports (replay.md §8), then
 * rendered as JSON (the shape of replay.md §8 and the README) or as terminal tables. No arithmetic on money here
 * beyond formatting: every cost and saving comes from SQL.
 */
import type { CostTotals, Fidelity, Money, ScenarioSaving, SessionCost } from '../cost/reports.js';
import { MEASURED_SCENARIO } from '../cost/rows.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import { poorFidelityReasons } from '../simulate/fidelity.js';
import { formatCompactCount } from '../format/compact-number.js';
import { renderTable } from './table.js';

/** The first-order counterfactual, printed once in every report (replay.md §4). */
export const ASSUMPTION =
  'First-order counterfactual: the agent is assumed to produce the same items in the same order under every policy; only the context each request carries changes. Output tokens are the recorded ones.';

export type UsageTotals = {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
  /** null when nothing could be priced; see `unpricedRequests`. */
  readonly costUsd: number | null;
  readonly unpricedRequests: number;
};

export type ScenarioResult = UsageTotals & {
  readonly scenario: string;
  readonly savingVsRecorded: { readonly promptTokens: number | null; readonly costUsd: number | null; readonly pct: number | null };
  readonly compactions: number;
  readonly blockedCompactions: number;
  readonly overflows: number;
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
  readonly scenarios: ReadonlyArray<{ readonly name: string; readonly family: string; readonly params: Scenario['params'] }>;
  readonly sessions: readonly SessionReport[];
  readonly totals: { readonly sessions: number; readonly recorded: UsageTotals & { readonly requests: number }; readonly results: readonly ScenarioResult[] };
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

function usd(money: Money): number | null {
  return money === null ? null : money.usd;
}

function usageOf(totals: CostTotals): UsageTotals {
  return {
    promptTokens: totals.promptTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWrite5mTokens + totals.cacheWrite1hTokens,
    uncachedInputTokens: totals.uncachedInputTokens,
    outputTokens: totals.outputTokens,
    costUsd: usd(totals.cost),
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
  unpricedRequests: 0,
};

function resultOf(cost: CostTotals & { readonly scenario: string; readonly flags?: readonly string[] }, saving: ScenarioSaving | undefined): ScenarioResult {
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
    overflows: cost.rejectedOverflows,
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
      recorded: { ...(measuredTotal === undefined ? EMPTY_USAGE : usageOf(measuredTotal)), requests: measuredTotal?.requests ?? 0 },
      results: input.scenarios.flatMap((scenario) => {
        const cost = totalCosts.get(scenario.name);
        return cost === undefined ? [] : [resultOf(cost, totalSavings.get(scenario.name))];
      }),
    },
    issues: input.issues,
  };
}

// ── terminal rendering ─────────────────────────────────────────────────────────────────────────

function money(value: number | null, unpriced: number): string {
  if (value === null) return 'unpriced';
  const text = Math.abs(value) >= 100 ? `$${value.toFixed(0)}` : Math.abs(value) >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
  return unpriced > 0 ? `${text}+` : text;
}

function signedMoney(value: number | null): string {
  if (value === null) return '-';
  const text = money(Math.abs(value), 0);
  return value < 0 ? `-${text}` : text;
}

function pct(value: number | null, digits = 1): string {
  return value === null ? '-' : `${value >= 0 ? '+' : ''}${value.toFixed(digits)}%`;
}

function count(value: number): string {
  return formatCompactCount(value);
}

const COLUMNS = [
  { header: 'scenario', align: 'left' },
  { header: 'prompt', align: 'right' },
  { header: 'cache read', align: 'right' },
  { header: 'cache write', align: 'right' },
  { header: 'uncached', align: 'right' },
  { header: 'output', align: 'right' },
  { header: 'cost', align: 'right' },
  { header: 'saved tokens', align: 'right' },
  { header: 'saved USD', align: 'right' },
  { header: 'saved', align: 'right' },
  { header: 'compactions', align: 'right' },
  { header: 'overflows', align: 'right' },
  { header: 'failed turns', align: 'right' },
] as const;

function usageCells(label: string, u: UsageTotals): string[] {
  return [label, count(u.promptTokens), count(u.cacheReadTokens), count(u.cacheWriteTokens), count(u.uncachedInputTokens), count(u.outputTokens), money(u.costUsd, u.unpricedRequests)];
}

function resultCells(r: ScenarioResult): string[] {
  const compactions = r.blockedCompactions > 0 ? `${r.compactions} (+${r.blockedCompactions} blocked)` : String(r.compactions);
  return [
    ...usageCells(r.scenario, r),
    r.scenario === 'recorded' ? '' : r.savingVsRecorded.promptTokens === null ? '-' : count(r.savingVsRecorded.promptTokens),
    r.scenario === 'recorded' ? '' : signedMoney(r.savingVsRecorded.costUsd),
    r.scenario === 'recorded' ? '' : r.savingVsRecorded.pct === null ? '-' : `${r.savingVsRecorded.pct.toFixed(1)}%`,
    compactions,
    String(r.overflows),
    String(r.failedTurns),
  ];
}

function scenarioTable(recorded: UsageTotals, measuredRequests: number, results: readonly ScenarioResult[]): string {
  const blank = ['', '', '', '', '', ''];
  return renderTable({
    columns: COLUMNS,
    rows: [measuredRequests === 0 ? ['bill (measured)', 'no measured usage in the log', '', '', '', '', '', ...blank] : [...usageCells('bill (measured)', recorded), ...blank], ...results.map(resultCells)],
  });
}

/** The terminal report: per session, then the totals; the assumption once. */
export function renderSimulateReport(report: SimulateReport): string {
  const out: string[] = [];
  for (const s of report.sessions) {
    out.push(`Session ${s.sessionId} (${s.source}, ${s.model}; ${s.recorded.requests} measured requests)`);
    out.push(
      `  recorded replay fidelity: prompt tokens ${pct(s.fidelity.promptTokensErrorPct)}, cost ${pct(s.fidelity.costErrorPct)}, median request ${s.fidelity.medianRequestErrorPct === null ? '-' : `${s.fidelity.medianRequestErrorPct.toFixed(2)}%`}` +
        (s.fidelity.note === null ? '' : ` (${s.fidelity.note})`),
    );
    const flagged = s.results.filter((r) => r.flags.length > 0).map((r) => `${r.scenario}: ${r.flags.join(', ')}`);
    if (flagged.length > 0) out.push(`  flags: ${flagged.join('; ')} (evidence and dollars: cachecost flags)`);
    out.push(`  recorded policy: ${s.recordedPolicy}; ${s.charsPerToken.toFixed(2)} chars/token, static block ${count(s.staticBlockTokens)} tokens`);
    out.push(scenarioTable(s.recorded, s.recorded.requests, s.results));
    out.push('');
  }
  out.push(`Total over ${report.totals.sessions} session${report.totals.sessions === 1 ? '' : 's'}`);
  out.push(scenarioTable(report.totals.recorded, report.totals.recorded.requests, report.totals.results));
  out.push('');
  out.push('Savings are against the simulated `recorded` scenario (modelling error cancels); the bill row is the log\'s measured usage.');
  out.push('A cost ending in + leaves out unpriced requests.');
  out.push(report.assumption);
  return out.join('\n');
}
