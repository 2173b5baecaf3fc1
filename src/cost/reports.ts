/**
 * Typed rows of the SQL reports (one reader per `.sql` view). Tokens are numbers; money is exact
 * bigint pico-dollars with a USD number beside it, rounded only here at the edge.
 */
import type { CacheClassTokens } from '../session/cache-class-tokens.js';
import { doubleOrNull, intOf, intOrNull, picoOrNull, stringListOf, stringOf, stringOrNull } from './duck-values.js';
import type { DuckRow } from './duck-values.js';
import { picoUsdToUsd } from './money.js';

/** A cost in exact pico-dollars and as a USD number; null = nothing priced (never $0 for unknown). */
export type Money = { readonly picoUsd: bigint; readonly usd: number } | null;

function moneyOf(row: DuckRow, column: string): Money {
  const picoUsd = picoOrNull(row, column);
  return picoUsd === null ? null : { picoUsd, usd: picoUsdToUsd(picoUsd) };
}

/** Totals shared by the per-session and per-scenario reports. Billed tokens exclude rejected overflows. */
export type CostTotals = CacheClassTokens & {
  readonly requests: number;
  readonly summarizeRequests: number;
  readonly rejectedOverflows: number;
  readonly peakContextTokens: number;
  readonly overflowRetries: number;
  readonly longContextRequests: number;
  /** Requests left out of the cost because their model or a class of theirs has no price. */
  readonly unpricedRequests: number;
  readonly unpricedPromptTokens: number;
  readonly unpricedOutputTokens: number;
  readonly inputCost: Money;
  readonly cacheReadCost: Money;
  readonly cacheWrite5mCost: Money;
  readonly cacheWrite1hCost: Money;
  readonly outputCost: Money;
  /** Sum over priced requests; null when none is priced. Incomplete when `unpricedRequests > 0`. */
  readonly cost: Money;
  readonly compactions: number;
  readonly blockedCompactions: number;
  readonly failedTurns: number;
};

function totalsOf(row: DuckRow): CostTotals {
  return {
    requests: intOf(row, 'requests'),
    summarizeRequests: intOf(row, 'summarize_requests'),
    rejectedOverflows: intOf(row, 'rejected_overflows'),
    promptTokens: intOf(row, 'prompt_tokens'),
    cacheReadTokens: intOf(row, 'cache_read_tokens'),
    cacheWrite5mTokens: intOf(row, 'cache_write_5m_tokens'),
    cacheWrite1hTokens: intOf(row, 'cache_write_1h_tokens'),
    uncachedInputTokens: intOf(row, 'uncached_input_tokens'),
    outputTokens: intOf(row, 'output_tokens'),
    peakContextTokens: intOf(row, 'peak_context_tokens'),
    overflowRetries: intOf(row, 'overflow_retries'),
    longContextRequests: intOf(row, 'long_context_requests'),
    unpricedRequests: intOf(row, 'unpriced_requests'),
    unpricedPromptTokens: intOf(row, 'unpriced_prompt_tokens'),
    unpricedOutputTokens: intOf(row, 'unpriced_output_tokens'),
    inputCost: moneyOf(row, 'cost_input_pusd'),
    cacheReadCost: moneyOf(row, 'cost_cache_read_pusd'),
    cacheWrite5mCost: moneyOf(row, 'cost_cache_write_5m_pusd'),
    cacheWrite1hCost: moneyOf(row, 'cost_cache_write_1h_pusd'),
    outputCost: moneyOf(row, 'cost_output_pusd'),
    cost: moneyOf(row, 'cost_pusd'),
    compactions: intOf(row, 'compactions'),
    blockedCompactions: intOf(row, 'blocked_compactions'),
    failedTurns: intOf(row, 'failed_turns'),
  };
}

/** `session_costs.sql`: one session under one scenario. */
export type SessionCost = CostTotals & {
  readonly sessionId: string;
  readonly scenario: string;
  readonly source: string;
  readonly models: readonly string[];
  readonly flags: readonly string[];
  readonly fidelityNote: string | null;
};

export function sessionCostOf(row: DuckRow): SessionCost {
  return {
    sessionId: stringOf(row, 'session_id'),
    scenario: stringOf(row, 'scenario'),
    source: stringOf(row, 'source'),
    models: stringListOf(row, 'models'),
    flags: stringListOf(row, 'flags'),
    fidelityNote: stringOrNull(row, 'fidelity_note'),
    ...totalsOf(row),
  };
}

/** `scenario_costs.sql`: one scenario over all sessions. */
export type ScenarioCost = CostTotals & {
  readonly scenario: string;
  /** null when the scenario was not registered in `scenarios`. */
  readonly family: string | null;
  readonly sessions: number;
};

export function scenarioCostOf(row: DuckRow): ScenarioCost {
  return {
    scenario: stringOf(row, 'scenario'),
    family: stringOrNull(row, 'family'),
    sessions: intOf(row, 'sessions'),
    ...totalsOf(row),
  };
}

/** A saving against one baseline; positive = cheaper than the baseline. Null when a side is unpriced or absent. */
export type Saving = {
  readonly baselinePromptTokens: number | null;
  readonly baselineCost: Money;
  readonly promptTokens: number | null;
  readonly cost: Money;
  readonly pct: number | null;
};

function savingOf(row: DuckRow, baseline: 'recorded' | 'none'): Saving {
  return {
    baselinePromptTokens: intOrNull(row, `${baseline}_prompt_tokens`),
    baselineCost: moneyOf(row, `${baseline}_cost_pusd`),
    promptTokens: intOrNull(row, `saving_vs_${baseline}_prompt_tokens`),
    cost: moneyOf(row, `saving_vs_${baseline}_pusd`),
    pct: doubleOrNull(row, `saving_vs_${baseline}_pct`),
  };
}

/** `session_savings.sql` / `scenario_savings.sql`: a scenario's saving against `recorded` and `none`. */
export type ScenarioSaving = {
  /** null in the per-scenario totals. */
  readonly sessionId: string | null;
  readonly scenario: string;
  readonly promptTokens: number;
  readonly cost: Money;
  readonly unpricedRequests: number;
  /** The bill: the `measured` scenario's cost. */
  readonly measuredCost: Money;
  readonly vsRecorded: Saving;
  readonly vsNone: Saving;
};

export function scenarioSavingOf(row: DuckRow): ScenarioSaving {
  return {
    sessionId: 'session_id' in row ? stringOf(row, 'session_id') : null,
    scenario: stringOf(row, 'scenario'),
    promptTokens: intOf(row, 'prompt_tokens'),
    cost: moneyOf(row, 'cost_pusd'),
    unpricedRequests: intOf(row, 'unpriced_requests'),
    measuredCost: moneyOf(row, 'measured_cost_pusd'),
    vsRecorded: savingOf(row, 'recorded'),
    vsNone: savingOf(row, 'none'),
  };
}

/** `compaction_summary.sql`: compactions of one session under one scenario. */
export type CompactionSummary = {
  readonly sessionId: string;
  readonly scenario: string;
  readonly compactions: number;
  readonly thresholdCompactions: number;
  readonly overflowCompactions: number;
  readonly manualCompactions: number;
  readonly recordedCompactions: number;
  readonly blockedCompactions: number;
  /** Σ (prompt before − after) as the provider counts it. */
  readonly promptTokensRemoved: number;
  /** Σ (estimate before − after): FreeCode's own count, which understates the saving (engine.md §6.6). */
  readonly estimateTokensRemoved: number;
  readonly summaryTokens: number;
  readonly maxPromptTokensBefore: number;
};

export function compactionSummaryOf(row: DuckRow): CompactionSummary {
  return {
    sessionId: stringOf(row, 'session_id'),
    scenario: stringOf(row, 'scenario'),
    compactions: intOf(row, 'compactions'),
    thresholdCompactions: intOf(row, 'threshold_compactions'),
    overflowCompactions: intOf(row, 'overflow_compactions'),
    manualCompactions: intOf(row, 'manual_compactions'),
    recordedCompactions: intOf(row, 'recorded_compactions'),
    blockedCompactions: intOf(row, 'blocked_compactions'),
    promptTokensRemoved: intOf(row, 'prompt_tokens_removed'),
    estimateTokensRemoved: intOf(row, 'estimate_tokens_removed'),
    summaryTokens: intOf(row, 'summary_tokens'),
    maxPromptTokensBefore: intOf(row, 'max_prompt_tokens_before'),
  };
}

/** `fidelity.sql`: the `recorded` replay against the measured usage, over matched requests. */
export type Fidelity = {
  readonly sessionId: string;
  readonly matchedRequests: number;
  readonly measuredPromptTokens: number;
  readonly recordedPromptTokens: number;
  readonly promptTokensErrorPct: number | null;
  readonly measuredCacheReadTokens: number;
  readonly recordedCacheReadTokens: number;
  readonly measuredCost: Money;
  readonly recordedCost: Money;
  readonly costErrorPct: number | null;
  readonly medianRequestErrorPct: number | null;
  readonly medianCacheReadErrorPct: number | null;
};

export function fidelityOf(row: DuckRow): Fidelity {
  return {
    sessionId: stringOf(row, 'session_id'),
    matchedRequests: intOf(row, 'matched_requests'),
    measuredPromptTokens: intOf(row, 'measured_prompt_tokens'),
    recordedPromptTokens: intOf(row, 'recorded_prompt_tokens'),
    promptTokensErrorPct: doubleOrNull(row, 'prompt_tokens_error_pct'),
    measuredCacheReadTokens: intOf(row, 'measured_cache_read_tokens'),
    recordedCacheReadTokens: intOf(row, 'recorded_cache_read_tokens'),
    measuredCost: moneyOf(row, 'measured_cost_pusd'),
    recordedCost: moneyOf(row, 'recorded_cost_pusd'),
    costErrorPct: doubleOrNull(row, 'cost_error_pct'),
    medianRequestErrorPct: doubleOrNull(row, 'median_request_error_pct'),
    medianCacheReadErrorPct: doubleOrNull(row, 'median_cache_read_error_pct'),
  };
}

/** `unpriced_models.sql`: model names that left requests unpriced, and why. */
export type UnpricedModel = {
  readonly model: string;
  readonly reason: 'unknown model' | 'no price at that date' | 'no rate for a used cache class';
  readonly requests: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
};

function unpricedReasonOf(row: DuckRow): UnpricedModel['reason'] {
  const reason = stringOf(row, 'reason');
  switch (reason) {
    case 'unknown model':
    case 'no price at that date':
    case 'no rate for a used cache class':
      return reason;
    default:
      throw new TypeError(`unpriced_models: unexpected reason ${reason}`);
  }
}

export function unpricedModelOf(row: DuckRow): UnpricedModel {
  return {
    model: stringOf(row, 'model'),
    reason: unpricedReasonOf(row),
    requests: intOf(row, 'requests'),
    promptTokens: intOf(row, 'prompt_tokens'),
    outputTokens: intOf(row, 'output_tokens'),
  };
}
