/**
 * A session's simulation as rows of the cost tables (replay.md §8): the log's measured usage as
 * the `measured` scenario (the bill, priced by the same SQL), then every scenario's replay.
 */
import type { BillRequest } from '../cost/bill-aggregate.js';
import type { CompactionRow, RequestRow, ScenarioRow, SessionRow } from '../cost/rows.js';
import { MEASURED_SCENARIO } from '../cost/rows.js';
import type { MeasuredUsage, Session } from '../session/model.js';
import { billedWrite5mTokens, unknownTtlTokens } from '../session/cache-class-tokens.js';
import { isModelledRequest } from './fidelity.js';
import type { Scenario } from './scenario.js';
import type { SessionSimulation } from './simulate-session.js';

export type SimulationRows = {
  readonly requests: RequestRow[];
  readonly compactions: CompactionRow[];
  readonly sessions: SessionRow[];
};

/** The scenarios table. */
export function scenarioRows(scenarios: readonly Scenario[]): ScenarioRow[] {
  return scenarios.map((scenario) => ({
    name: scenario.name,
    family: scenario.family,
    params_json: JSON.stringify(scenario.params),
  }));
}

/** Distinct models of a session in order of first use. */
export function sessionModels(session: Session): string[] {
  return [...new Set(session.requests.map((request) => request.model))];
}

/** A request's cache-write tokens of unknown TTL (`unknownTtlTokens`), in its `measured` row's 5m column. */
export function unknownTtlWriteTokens(usage: MeasuredUsage): number {
  return unknownTtlTokens(usage.cacheWriteTokens, usage.cacheWrite5mTokens, usage.cacheWrite1hTokens);
}

/**
 * The bill: one `measured` row per request with measured usage. A write whose 5m/1h split the log
 * does not give is put in the 5m column, the rate every agent writes by default (formats.md);
 * `unknownTtlWriteTokens` says how much of that column is such a write.
 */
export function measuredRows(session: Session): RequestRow[] {
  const rows: RequestRow[] = [];
  for (const request of session.requests) {
    const usage = request.usage;
    if (usage === null) continue;
    const write1h = usage.cacheWrite1hTokens ?? 0;
    rows.push({
      session_id: session.id,
      source: session.source,
      model: request.model,
      scenario: MEASURED_SCENARIO,
      request_index: request.index,
      timestamp_ms: request.timestampMs,
      kind: 'request',
      prompt_tokens: usage.promptTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_5m_tokens: billedWrite5mTokens(usage),
      cache_write_1h_tokens: write1h,
      uncached_input_tokens: usage.uncachedInputTokens,
      output_tokens: usage.outputTokens,
      context_tokens_after: usage.promptTokens + usage.outputTokens,
      compaction_before: false,
      overflow_retries: 0,
      modelled: isModelledRequest(request),
    });
  }
  return rows;
}

/**
 * The TypeScript bill's input for one session (`cost/bill-aggregate.ts`): its `measuredRows`, each
 * with the session's project and host as the report records them, whether it is sub-agent traffic,
 * and how much of its 5m column is a write of unknown TTL.
 */
export function measuredBillRequests(
  session: Session,
  place: { readonly project: string | null; readonly host: string | null },
): BillRequest[] {
  // The columns of `measuredRows`, computed in one pass without its rows (a re-run's bill folds
  // ~35,000 requests; the rows and their copies were a tenth of it). test/cost/bill-aggregate.test.ts
  // holds the bill of these equal to the SQL's over `measuredRows`.
  const out: BillRequest[] = [];
  for (const request of session.requests) {
    const usage = request.usage;
    if (usage === null) continue;
    const write1h = usage.cacheWrite1hTokens ?? 0;
    out.push({
      sessionId: session.id,
      project: place.project,
      host: place.host,
      model: request.model,
      timestampMs: request.timestampMs,
      subagent: request.agentId !== null,
      promptTokens: usage.promptTokens,
      uncachedInputTokens: usage.uncachedInputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWrite5mTokens: billedWrite5mTokens(usage),
      cacheWrite1hTokens: write1h,
      outputTokens: usage.outputTokens,
      unknownTtlTokens: unknownTtlWriteTokens(usage),
    });
  }
  return out;
}

/** What the log lacks that limits the replay's fidelity, when it tells (replay.md §6); the measures themselves are SQL's. */
export function fidelityNote(simulation: SessionSimulation): string | null {
  const { session, fidelity, calibration } = simulation;
  if (fidelity.measuredRequests === 0) return 'no measured usage in the log';
  const notes: string[] = [];
  const textless = session.items.filter((item) => item.text === null).length;
  if (textless > 0) notes.push(`${textless} items without content (sizes from counts)`);
  if (calibration.source !== 'fitted') notes.push('chars-per-token ratio not fitted (default 4)');

  return notes.length === 0 ? null : notes.join('; ');
}

function isModelled(session: Session, sourceRequestIndex: number | null): boolean {
  const request = sourceRequestIndex === null ? undefined : session.requests[sourceRequestIndex];
  return request !== undefined && isModelledRequest(request);
}

/**
 * Every row a simulated session contributes. `flags` names the flags raised per scenario
 * (`recorded` = the log's own data), for the sessions table's `flags` column (replay.md §8).
 */
export function simulationRows(
  simulation: SessionSimulation,
  flags: ReadonlyMap<string, readonly string[]> = new Map(),
): SimulationRows {
  const { session } = simulation;
  const models = sessionModels(session);
  const requests: RequestRow[] = measuredRows(session);
  const compactions: CompactionRow[] = [];
  const sessions: SessionRow[] = [];
  const note = fidelityNote(simulation);
  for (const { scenario, result } of simulation.results) {
    for (const row of result.rows) {
      requests.push({
        session_id: session.id,
        source: session.source,
        model: row.model,
        scenario: scenario.name,
        request_index: row.requestIndex,
        timestamp_ms: row.timestampMs,
        kind: row.kind,
        prompt_tokens: row.promptTokens,
        cache_read_tokens: row.cacheReadTokens,
        cache_write_5m_tokens: row.cacheWrite5mTokens,
        cache_write_1h_tokens: row.cacheWrite1hTokens,
        uncached_input_tokens: row.uncachedInputTokens,
        output_tokens: row.outputTokens,
        context_tokens_after: row.contextTokensAfter,
        compaction_before: row.compactionBefore,
        overflow_retries: row.overflowRetries,
        modelled:
          scenario.family === 'recorded' && row.kind === 'request' && isModelled(session, row.sourceRequestIndex),
      });
    }
    for (const compaction of result.compactions) {
      // An attempt that found nothing to summarize is no compaction (it is visible as a failed turn).
      if (!compaction.compacted && !compaction.hookBlocked) continue;
      compactions.push({
        session_id: session.id,
        scenario: scenario.name,
        request_index: compaction.requestIndex,
        trigger: compaction.trigger,
        prompt_tokens_before: compaction.promptTokensBefore,
        prompt_tokens_after: compaction.compacted ? compaction.promptTokensAfter : null,
        estimate_tokens_before: compaction.estimateTokensBefore,
        estimate_tokens_after: compaction.compacted ? compaction.estimateTokensAfter : null,
        messages_before: compaction.messagesBefore,
        messages_after: compaction.compacted ? compaction.messagesAfter : null,
        summary_tokens: compaction.compacted ? compaction.summaryTokens : null,
        hook_blocked: compaction.hookBlocked,
      });
    }
    sessions.push({
      session_id: session.id,
      source: session.source,
      models,
      scenario: scenario.name,
      failed_turns: result.failedTurns,
      fidelity_note: scenario.family === 'recorded' ? note : null,
      flags: [...(flags.get(scenario.name) ?? [])],
    });
  }
  return { requests, compactions, sessions };
}
