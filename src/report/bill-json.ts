/**
 * The `report` command's result as one JSON-ready object (replay.md §3, the recorded cost): `--json`
 * prints it as is, the table (`bill-report.ts`) and the CSV (`bill-csv.ts`) render it. Every amount
 * comes from the bill (`src/cost/bill.ts` in SQL, `bill-aggregate.ts` its TypeScript twin) as an
 * exact decimal USD string; unpriced is null, never $0. A module apart from the table, so that
 * `--json` and `--csv` load no table renderer.
 */
import type { BillGrouping, BillLine, BillTable, BillUnpricedModel } from '../cost/bill.js';
import { formatPicoUsd } from '../cost/money.js';
import type { Money } from '../cost/reports.js';
import type { IngestIssue } from '../session/model.js';

/** Said in reports grouped by time: what a day is. */
export function dayNote(timeZone: string): string {
  return `Days are dates of each request's timestamp in ${timeZone}; weeks start on Monday; --since/--until are inclusive dates there.`;
}
export const UNKNOWN_TTL_NOTE = 'Writes of unknown TTL: the log gave no 5m/1h split; they are priced at the 5m rate.';

/** Money as an exact decimal USD string; null = unpriced. */
export type UsdString = string | null;

export type BillLineJson = {
  readonly key: string | null;
  readonly requests: number;
  readonly sessions: number;
  readonly models: readonly string[];
  /** ISO-8601 UTC of the first and last request in the group (null without timestamps). */
  readonly firstRequestAt: string | null;
  readonly lastRequestAt: string | null;
  readonly promptTokens: number;
  readonly uncachedInputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly cacheWriteUnknownTtlTokens: number;
  readonly outputTokens: number;
  readonly cacheHitRatePct: number | null;
  readonly longContextRequests: number;
  readonly unpricedRequests: number;
  readonly unpricedTokens: number;
  /** Exact USD over the priced requests; null when none is priced. */
  readonly costUsd: UsdString;
  /** False when some requests of the group are unpriced (the cost leaves them out). */
  readonly costComplete: boolean;
  /**
   * Requests of sub-agents (Claude Code subagents and sidechains, Codex forked sub-agents) attributed
   * to the group's sessions; null when not known (`report --from` over exports older than `requests.agent_id`).
   */
  readonly subagentRequests: number | null;
  /** Exact USD of those requests, priced like `costUsd` ("0" without any; null when none is priced or not known). */
  readonly subagentCostUsd: UsdString;
  /** False when some sub-agent requests are unpriced (their cost leaves them out); null when not known. */
  readonly subagentCostComplete: boolean | null;
  /** Exact USD of the other requests: the cost without sub-agents (costUsd − subagentCostUsd when both are priced). */
  readonly ownCostUsd: UsdString;
  /** With --breakdown: the group's lines per model (`key` = the model); otherwise absent. */
  readonly breakdown?: readonly BillLineJson[];
  readonly costByClassUsd: {
    readonly uncachedInput: UsdString;
    readonly cacheRead: UsdString;
    readonly cacheWrite5m: UsdString;
    readonly cacheWrite1h: UsdString;
    readonly cacheWriteUnknownTtl: UsdString;
    readonly output: UsdString;
  };
};

/** Requests that cannot be in the bill, counted so that nothing is dropped silently. */
export type BillExclusions = {
  /** Sessions whose log holds totals only (SWE-agent): no per-request usage to price. */
  readonly totalsOnlySessions: number;
  /** Requests the log shows without measured usage. */
  readonly requestsWithoutUsage: number;
  /** Requests without a timestamp, left out because --since/--until was given. */
  readonly undatedRequestsOutsideWindow: number;
};

export type BillReport = {
  readonly by: BillGrouping;
  /** The IANA time zone of days, weeks, months and --since/--until. */
  readonly timeZone: string;
  readonly since: string | null;
  readonly until: string | null;
  readonly notes: readonly string[];
  readonly lines: readonly BillLineJson[];
  readonly total: BillLineJson;
  readonly unpricedModels: readonly BillUnpricedModel[];
  readonly excluded: BillExclusions;
  readonly issues: readonly IngestIssue[];
};

function usdOf(money: Money): UsdString {
  return money === null ? null : formatPicoUsd(money.picoUsd);
}

function isoOf(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A bill line in the JSON shape. */
export function billLineJson(line: BillLine, breakdown = false): BillLineJson {
  return {
    key: line.key,
    requests: line.requests,
    sessions: line.sessions,
    models: line.models,
    firstRequestAt: isoOf(line.firstTimestampMs),
    lastRequestAt: isoOf(line.lastTimestampMs),
    promptTokens: line.promptTokens,
    uncachedInputTokens: line.uncachedInputTokens,
    cacheReadTokens: line.cacheReadTokens,
    cacheWrite5mTokens: line.cacheWrite5mTokens,
    cacheWrite1hTokens: line.cacheWrite1hTokens,
    cacheWriteUnknownTtlTokens: line.cacheWriteUnknownTtlTokens,
    outputTokens: line.outputTokens,
    cacheHitRatePct: line.cacheHitRatePct,
    longContextRequests: line.longContextRequests,
    unpricedRequests: line.unpricedRequests,
    unpricedTokens: line.unpricedTokens,
    costUsd: usdOf(line.cost),
    costComplete: line.unpricedRequests === 0,
    subagentRequests: line.subagentRequests,
    subagentCostUsd: usdOf(line.subagentCost),
    subagentCostComplete: line.subagentUnpricedRequests === null ? null : line.subagentUnpricedRequests === 0,
    ownCostUsd: usdOf(line.ownCost),
    costByClassUsd: {
      uncachedInput: usdOf(line.inputCost),
      cacheRead: usdOf(line.cacheReadCost),
      cacheWrite5m: usdOf(line.cacheWrite5mCost),
      cacheWrite1h: usdOf(line.cacheWrite1hCost),
      cacheWriteUnknownTtl: usdOf(line.cacheWriteUnknownTtlCost),
      output: usdOf(line.outputCost),
    },
    ...(breakdown ? { breakdown: line.breakdown.map((model) => billLineJson(model)) } : {}),
  };
}

export type BillReportInput = {
  readonly by: BillGrouping;
  readonly timeZone: string;
  readonly breakdown: boolean;
  /** Reverse the SQL's order (dates and sessions ascending, models and projects by cost descending). */
  readonly reverse: boolean;
  readonly since: string | null;
  readonly until: string | null;
  readonly table: BillTable;
  readonly unpricedModels: readonly BillUnpricedModel[];
  readonly excluded: BillExclusions;
  readonly issues: readonly IngestIssue[];
};

/** The report object (`--json` prints it as is). */
export function buildBillReport(input: BillReportInput): BillReport {
  const notes: string[] = [];
  if (['day', 'week', 'month'].includes(input.by) || input.since !== null || input.until !== null)
    notes.push(dayNote(input.timeZone));
  if (input.table.total.cacheWriteUnknownTtlTokens > 0) notes.push(UNKNOWN_TTL_NOTE);
  const lines = input.table.lines.map((line) => billLineJson(line, input.breakdown));
  return {
    by: input.by,
    timeZone: input.timeZone,
    since: input.since,
    until: input.until,
    notes,
    lines: input.reverse ? lines.reverse() : lines,
    total: billLineJson(input.table.total),
    unpricedModels: input.unpricedModels,
    excluded: input.excluded,
    issues: input.issues,
  };
}
