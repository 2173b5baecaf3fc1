/**
 * The `report` command's output (replay.md §3, the recorded cost): the bill as one JSON-ready object and as a terminal
 * table. Every amount comes from SQL (`src/cost/bill.ts`); here money is only formatted: exact
 * decimal USD strings in JSON, rounded dollars in the table. Unpriced is never shown as $0.
 */
import type { BillGrouping, BillLine, BillTable, BillUnpricedModel } from '../cost/bill.js';
import { formatPicoUsd } from '../cost/money.js';
import { formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens, formatTokensWithUnit } from '../format/number.js';
import { fitWidth, type Paint, paint as makePaint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { wrapText } from '../format/wrap.js';
import type { Money } from '../cost/reports.js';
import type { IngestIssue } from '../session/model.js';
import { renderTable, type TableColumn } from './table.js';

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

const KEY_HEADERS: Record<BillGrouping, string> = {
  day: 'Day',
  week: 'Week of',
  month: 'Month',
  session: 'Session',
  model: 'Model',
  project: 'Project',
  host: 'Host',
};
const NO_KEY: Record<BillGrouping, string> = {
  day: '(no date)',
  week: '(no date)',
  month: '(no date)',
  session: '(none)',
  model: '(none)',
  project: '(no project)',
  host: '(no host)',
};

/** Dollars for the table: the shared formatter, `unpriced` for null (exact values are in JSON/CSV). */
export function formatUsdForTable(usd: UsdString): string {
  return formatUsd(usd);
}

function costCell(line: BillLineJson, paint: Paint): string {
  // An incomplete sum is marked so that nobody reads it as the whole bill.
  const text = formatUsd(line.costUsd, { incomplete: !line.costComplete && line.costUsd !== null });
  return line.costComplete ? text : paint.warn(text);
}

function subagentCell(line: BillLineJson, paint: Paint): string {
  if (line.subagentRequests === null || line.subagentRequests === 0) return '-';
  const complete = line.subagentCostComplete === true;
  const text = formatUsd(line.subagentCostUsd, { incomplete: !complete && line.subagentCostUsd !== null });
  return complete ? text : paint.warn(text);
}

function keyText(by: BillGrouping, key: string | null): string {
  if (key === null) return NO_KEY[by];
  return by === 'session' ? shortId(key) : key;
}

function cells(line: BillLineJson, key: string, paint: Paint, subagents: boolean): string[] {
  const writes = line.cacheWrite5mTokens + line.cacheWrite1hTokens + line.cacheWriteUnknownTtlTokens;
  return [
    key,
    formatCount(line.requests),
    formatTokens(line.uncachedInputTokens),
    formatTokens(line.cacheReadTokens),
    formatTokens(writes),
    formatTokens(line.cacheWrite5mTokens),
    formatTokens(line.cacheWrite1hTokens),
    formatTokens(line.cacheWriteUnknownTtlTokens),
    formatTokens(line.outputTokens),
    formatPct(line.cacheHitRatePct),
    costCell(line, paint),
    ...(subagents ? [subagentCell(line, paint)] : []),
    line.unpricedRequests === 0
      ? '-'
      : paint.warn(`${formatTokens(line.unpricedTokens)} (${formatCount(line.unpricedRequests)} req)`),
  ];
}

const NUMBER_COLUMNS: readonly TableColumn[] = [
  { header: 'Requests', align: 'right', secondary: true },
  { header: 'Uncached in', align: 'right' },
  { header: 'Cache read', align: 'right' },
  { header: 'Cache write', align: 'right', compactOnly: true },
  { header: 'Write 5m', align: 'right', secondary: true },
  { header: 'Write 1h', align: 'right', secondary: true },
  { header: 'Write ?TTL', align: 'right', secondary: true },
  { header: 'Output', align: 'right' },
  { header: 'Hit rate', align: 'right', secondary: true },
  { header: 'Cost', align: 'right' },
  { header: 'Unpriced tok', align: 'right', secondary: true },
];
/** After `Cost` when sessions have sub-agent requests: their share of the cost (left out of the compact layout). */
const SUBAGENT_COLUMN: TableColumn = { header: 'Sub-agents', align: 'right', secondary: true };

/** The bill as a terminal table with a total row, followed by its notes (wrapped to the width). */
export function renderBillReport(report: BillReport, options: TerminalOptions = PLAIN): string {
  const paint = makePaint(options);
  // The sub-agent share is shown per session, and only when some session has sub-agent requests.
  const subagents = report.by === 'session' && report.lines.some((line) => (line.subagentRequests ?? 0) > 0);
  const numberColumns = subagents
    ? NUMBER_COLUMNS.flatMap((c) => (c.header === 'Cost' ? [c, SUBAGENT_COLUMN] : [c]))
    : NUMBER_COLUMNS;
  const noWrap = report.by !== 'project' && report.by !== 'model';
  const keyColumn: TableColumn = { header: KEY_HEADERS[report.by], align: 'left', noWrap };
  const columns: TableColumn[] = [keyColumn, ...numberColumns];
  const rows: string[][] = [];
  for (const line of report.lines) {
    rows.push(cells(line, keyText(report.by, line.key), paint, subagents));
    for (const model of line.breakdown ?? []) rows.push(cells(model, `  - ${model.key ?? '(none)'}`, paint, subagents));
  }
  const table = renderTable({ columns, rows, footer: [cells(report.total, 'Total', paint, subagents)] }, options);
  const notes = [...report.notes];
  if (report.lines.some((line) => !line.costComplete)) {
    notes.push(`A cost ending in ${INCOMPLETE_MARK} leaves out unpriced requests (see "Unpriced tok", or --json).`);
  }
  for (const model of report.unpricedModels) {
    notes.push(
      `Model "${model.model}" is unpriced: ${formatCount(model.requests)} requests, ${formatTokensWithUnit(model.tokens)} left out of every cost.`,
    );
  }
  if (subagents) {
    notes.push(
      '"Sub-agents" (a --wide column) is the part of each session\'s cost spent by its sub-agents, inside "Cost"; ' +
        '--json gives ownCostUsd.',
    );
  }
  const { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow } = report.excluded;
  if (totalsOnlySessions > 0)
    notes.push(
      `${formatCount(totalsOnlySessions)} session(s) record totals only (no per-request usage) and are not in the bill.`,
    );
  if (requestsWithoutUsage > 0)
    notes.push(
      `${formatCount(requestsWithoutUsage)} request(s) have no measured usage in the log and are not in the bill.`,
    );
  if (undatedRequestsOutsideWindow > 0)
    notes.push(
      `${formatCount(undatedRequestsOutsideWindow)} request(s) without a timestamp are outside --since/--until.`,
    );
  const window =
    report.since === null && report.until === null
      ? []
      : [`Window: ${report.since ?? 'start'} .. ${report.until ?? 'end'} (${report.timeZone}, inclusive).`];
  const width = fitWidth(options);
  return [...window, table, ...notes].map((line) => (line === table ? line : wrapText(line, width))).join('\n');
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}
