/**
 * The `report` command's output (replay.md §3, the recorded cost): the bill as one JSON-ready object and as a terminal
 * table. Every amount comes from SQL (`src/cost/bill.ts`); here money is only formatted: exact
 * decimal USD strings in JSON, rounded dollars in the table. Unpriced is never shown as $0.
 */
import type { BillGrouping, BillLine, BillTable, BillUnpricedModel } from '../cost/bill.js';
import { formatPicoUsd } from '../cost/money.js';
import type { Money } from '../cost/reports.js';
import type { IngestIssue } from '../session/model.js';
import { formatCompactCount } from '../format/compact-number.js';
import { renderTable } from './table.js';

/** Said once in every report: what a day is. */
export const DAY_NOTE = 'Days are UTC dates of each request\'s timestamp; --since/--until are inclusive UTC dates.';
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
export function billLineJson(line: BillLine): BillLineJson {
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
    costByClassUsd: {
      uncachedInput: usdOf(line.inputCost),
      cacheRead: usdOf(line.cacheReadCost),
      cacheWrite5m: usdOf(line.cacheWrite5mCost),
      cacheWrite1h: usdOf(line.cacheWrite1hCost),
      cacheWriteUnknownTtl: usdOf(line.cacheWriteUnknownTtlCost),
      output: usdOf(line.outputCost),
    },
  };
}

export type BillReportInput = {
  readonly by: BillGrouping;
  readonly since: string | null;
  readonly until: string | null;
  readonly table: BillTable;
  readonly unpricedModels: readonly BillUnpricedModel[];
  readonly excluded: BillExclusions;
  readonly issues: readonly IngestIssue[];
};

/** The report object (`--json` prints it as is). */
export function buildBillReport(input: BillReportInput): BillReport {
  const notes = [DAY_NOTE];
  if (input.table.total.cacheWriteUnknownTtlTokens > 0) notes.push(UNKNOWN_TTL_NOTE);
  return {
    by: input.by,
    since: input.since,
    until: input.until,
    notes,
    lines: input.table.lines.map(billLineJson),
    total: billLineJson(input.table.total),
    unpricedModels: input.unpricedModels,
    excluded: input.excluded,
    issues: input.issues,
  };
}

const KEY_HEADERS: Record<BillGrouping, string> = { day: 'Day (UTC)', session: 'Session', model: 'Model', project: 'Project', host: 'Host' };
const NO_KEY: Record<BillGrouping, string> = { day: '(no date)', session: '(none)', model: '(none)', project: '(no project)', host: '(no host)' };

/** Dollars for the table: cents from $1 up, four decimals below, `unpriced` for null (exact values are in JSON/CSV). */
export function formatUsdForTable(usd: UsdString): string {
  if (usd === null) return 'unpriced';
  const value = Number(usd);
  if (Math.abs(value) < 1) return `$${value.toFixed(4)}`;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

function costCell(line: BillLineJson): string {
  // An incomplete sum is marked so that nobody reads it as the whole bill.
  return `${formatUsdForTable(line.costUsd)}${line.costComplete || line.costUsd === null ? '' : '*'}`;
}

function cells(line: BillLineJson, key: string): string[] {
  const count = formatCompactCount;
  return [
    key,
    count(line.requests),
    count(line.uncachedInputTokens),
    count(line.cacheReadTokens),
    count(line.cacheWrite5mTokens),
    count(line.cacheWrite1hTokens),
    count(line.cacheWriteUnknownTtlTokens),
    count(line.outputTokens),
    line.cacheHitRatePct === null ? '-' : `${line.cacheHitRatePct.toFixed(1)}%`,
    costCell(line),
    line.unpricedRequests === 0 ? '-' : `${count(line.unpricedTokens)} (${count(line.unpricedRequests)} req)`,
  ];
}

/** The bill as a terminal table with a total row, followed by its notes. */
export function renderBillReport(report: BillReport): string {
  const columns = [
    { header: KEY_HEADERS[report.by], align: 'left' as const },
    ...['Requests', 'Uncached in', 'Cache read', 'Write 5m', 'Write 1h', 'Write ?TTL', 'Output', 'Hit rate', 'Cost', 'Unpriced tok'].map((header) => ({
      header,
      align: 'right' as const,
    })),
  ];
  const table = renderTable({
    columns,
    rows: report.lines.map((line) => cells(line, line.key ?? NO_KEY[report.by])),
    footer: [cells(report.total, 'Total')],
  });
  const notes = [...report.notes];
  if (report.lines.some((line) => !line.costComplete)) notes.push('* incomplete: unpriced requests are left out of the cost (see "Unpriced tok").');
  for (const model of report.unpricedModels) notes.push(`Model "${model.model}" is unpriced: ${model.requests} requests, ${model.tokens} tokens left out of every cost.`);
  const { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow } = report.excluded;
  if (totalsOnlySessions > 0) notes.push(`${totalsOnlySessions} session(s) record totals only (no per-request usage) and are not in the bill.`);
  if (requestsWithoutUsage > 0) notes.push(`${requestsWithoutUsage} request(s) have no measured usage in the log and are not in the bill.`);
  if (undatedRequestsOutsideWindow > 0) notes.push(`${undatedRequestsOutsideWindow} request(s) without a timestamp are outside --since/--until.`);
  const window = report.since === null && report.until === null ? '' : `Window: ${report.since ?? 'start'} .. ${report.until ?? 'end'} (UTC, inclusive).\n`;
  return `${window}${table}\n${notes.join('\n')}`;
}
