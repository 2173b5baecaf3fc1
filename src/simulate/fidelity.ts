/**
 * Fidelity (replay.md §6): how closely the `recorded` replay reproduces the measured usage,
 * request by request. Comparisons between scenarios are trusted only as far as this.
 */
import type { Request, Session } from '../session/model.js';
import type { ReplayRow } from './replay.js';

export type Fidelity = {
  /** Requests with measured usage that the replay reproduced. */
  readonly measuredRequests: number;
  /** (Σ simulated − Σ measured) / Σ measured prompt tokens, in percent; null without measurements. */
  readonly promptTokensErrorPct: number | null;
  readonly cacheReadTokensErrorPct: number | null;
  /** Median over requests of |simulated − measured| / measured prompt tokens, in percent. */
  readonly medianRequestErrorPct: number | null;
  /** Median over requests of |simulated − measured| cache reads, relative to the measured prompt, in percent. */
  readonly medianCacheReadErrorPct: number | null;
};

/** Prompt-token error (total, or median per request) above which a session's fidelity is marked poor. */
export const POOR_FIDELITY_PCT = 5;
/** Cost error above which a session's fidelity is marked poor (cache reads are the usual cause). */
export const POOR_COST_FIDELITY_PCT = 10;

/**
 * Why a replay's fidelity is poor, one phrase per measure past its bound (empty when it is not):
 * the total prompt error, the median per-request error, and the cost error (known after pricing).
 */
export function poorFidelityReasons(f: {
  readonly promptTokensErrorPct: number | null;
  readonly medianRequestErrorPct: number | null;
  readonly costErrorPct: number | null;
}): string[] {
  const reasons: string[] = [];
  if (f.promptTokensErrorPct !== null && Math.abs(f.promptTokensErrorPct) > POOR_FIDELITY_PCT) {
    reasons.push(`prompt tokens off by ${f.promptTokensErrorPct.toFixed(1)}%`);
  }
  if (f.medianRequestErrorPct !== null && f.medianRequestErrorPct > POOR_FIDELITY_PCT) {
    reasons.push(`median request off by ${f.medianRequestErrorPct.toFixed(1)}%`);
  }
  if (f.costErrorPct !== null && Math.abs(f.costErrorPct) > POOR_COST_FIDELITY_PCT) {
    reasons.push(`cost off by ${f.costErrorPct.toFixed(1)}%`);
  }
  return reasons;
}

/**
 * The one definition of the requests the fidelity compares (replay.md §6): the requests the replay
 * models, i.e. main-agent requests with a measured, non-empty prompt. Side requests (subagents,
 * memory jobs) are billed as measured in every scenario, so they are no evidence; a request
 * without measured usage has nothing to compare with. `fidelity.sql` compares the rows flagged
 * with this (`modelled`), so the report and the fit agree.
 */
export function isModelledRequest(request: Request): boolean {
  return request.agentId === null && request.usage !== null && request.usage.promptTokens > 0;
}

/** Compares the recorded replay's priced rows with the log's measured usage. */
/** What the fidelity reads of a replay row. */
export type FidelityRow = Pick<ReplayRow, 'kind' | 'sourceRequestIndex' | 'promptTokens' | 'cacheReadTokens'>;

export function measureFidelity(session: Session, recordedRows: readonly FidelityRow[]): Fidelity {
  let measured = 0;
  let simulated = 0;
  let measuredRead = 0;
  let simulatedRead = 0;
  const promptErrors: number[] = [];
  const readErrors: number[] = [];
  for (const row of recordedRows) {
    if (row.kind !== 'request' || row.sourceRequestIndex === null) continue;
    const request = session.requests[row.sourceRequestIndex];
    if (request === undefined || !isModelledRequest(request)) continue;
    const usage = request.usage;
    if (usage === null) continue;
    measured += usage.promptTokens;
    simulated += row.promptTokens;
    measuredRead += usage.cacheReadTokens;
    simulatedRead += row.cacheReadTokens;
    promptErrors.push((Math.abs(row.promptTokens - usage.promptTokens) / usage.promptTokens) * 100);
    readErrors.push((Math.abs(row.cacheReadTokens - usage.cacheReadTokens) / usage.promptTokens) * 100);
  }
  if (promptErrors.length === 0) {
    return {
      measuredRequests: 0,
      promptTokensErrorPct: null,
      cacheReadTokensErrorPct: null,
      medianRequestErrorPct: null,
      medianCacheReadErrorPct: null,
    };
  }
  return {
    measuredRequests: promptErrors.length,
    promptTokensErrorPct: ((simulated - measured) / measured) * 100,
    cacheReadTokensErrorPct:
      measuredRead === 0 ? (simulatedRead === 0 ? 0 : null) : ((simulatedRead - measuredRead) / measuredRead) * 100,
    medianRequestErrorPct: median(promptErrors),
    medianCacheReadErrorPct: median(readErrors),
  };
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}
