/**
 * The `report` command's terminal table (replay.md §3, the recorded cost): the bill object
 * (`bill-json.ts`) with money rounded to dollars for people. Unpriced is never shown as $0.
 */
import type { BillGrouping } from '../cost/bill.js';
import { formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens, formatTokensWithUnit } from '../format/number.js';
import { fitWidth, type Paint, paint as makePaint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { wrapText } from '../format/wrap.js';
import type { BillLineJson, BillReport, UsdString } from './bill-json.js';
import { renderTable, type TableColumn } from './table.js';

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
