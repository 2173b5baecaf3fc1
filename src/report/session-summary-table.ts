/**
 * The `sessions` terminal table: the rows of `session-summary.ts` with compact numbers and a total
 * row, fitted to the terminal.
 */
import { parseUsdToPico } from '../cost/money.js';
import { formatUsd } from '../format/money.js';
import { formatCount, formatTokens } from '../format/number.js';
import { paint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import type { SessionRow } from './session-summary.js';
import { renderTable, type TableColumn } from './table.js';

const TABLE_COLUMNS: readonly TableColumn[] = [
  { header: 'Session', align: 'left', noWrap: true },
  { header: 'Source', align: 'left', secondary: true },
  { header: 'Models', align: 'left' },
  { header: 'User msgs', align: 'right', secondary: true },
  { header: 'Requests', align: 'right' },
  { header: 'Prompt', align: 'right', secondary: true },
  { header: 'Cache read', align: 'right' },
  { header: 'Cache write', align: 'right', secondary: true },
  { header: 'Output', align: 'right', secondary: true },
  { header: 'Peak ctx', align: 'right' },
  { header: 'Compactions', align: 'right', secondary: true },
  { header: 'Overflows', align: 'right', secondary: true },
  { header: 'Issues', align: 'right', secondary: true },
  { header: 'Cost', align: 'right' },
];

const UNKNOWN = '-';
const SHORT_ID_CHARS = 8;

/** UUID-length ids are shown by their first 8 characters (the way FreeCode's docs name sessions); JSON/CSV keep them whole. */
function shortId(id: string): string {
  return id.length > SHORT_ID_CHARS + 4 ? `${id.slice(0, SHORT_ID_CHARS)}…` : id;
}

function count(value: number | null): string {
  return value === null ? UNKNOWN : formatTokens(value);
}

function exact(value: number | null): string {
  return value === null ? UNKNOWN : formatCount(value);
}

/** The sum of the rows' costs in pico-dollars, null when none is priced. */
function totalPico(rows: readonly SessionRow[]): bigint | null {
  const priced = rows.filter((row) => row.costUsd !== null);
  if (priced.length === 0) return null;
  return priced.reduce((sum, row) => sum + parseUsdToPico(row.costUsd ?? '0'), 0n);
}

function sumOrNull(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}

/** Requests with measured usage, and apart those whose log reports none (never priced): `9 (+2 no usage)`. */
function requestsCell(measured: number | null, withoutUsage: number): string {
  return withoutUsage === 0 ? exact(measured) : `${exact(measured)} (+${formatCount(withoutUsage)} no usage)`;
}

/** The `sessions` table: one row per session, plus a total row when there is more than one. */
export function renderSessionSummaryTable(rows: readonly SessionRow[], options: TerminalOptions = PLAIN): string {
  const { warn } = paint(options);
  const cost = (usd: string | bigint | null, complete: boolean) => {
    const text = formatUsd(usd, { incomplete: !complete && usd !== null });
    return complete ? text : warn(text);
  };
  const body = rows.map((row) => [
    shortId(row.sessionId),
    row.source,
    row.models.join(', '),
    exact(row.userMessages),
    requestsCell(row.requests, row.requestsWithoutUsage),
    count(row.promptTokens),
    count(row.cacheReadTokens),
    count(row.cacheWriteTokens),
    count(row.outputTokens),
    count(row.peakContextTokens),
    exact(row.compactions),
    exact(row.overflows),
    exact(row.issues),
    cost(row.costUsd, row.costComplete),
  ]);
  const peaks = rows.map((row) => row.peakContextTokens).filter((value): value is number => value !== null);
  const footer =
    rows.length > 1
      ? [
          [
            `Total (${rows.length})`,
            '',
            '',
            exact(sumOrNull(rows.map((r) => r.userMessages))),
            requestsCell(
              sumOrNull(rows.map((r) => r.requests)),
              rows.reduce((n, r) => n + r.requestsWithoutUsage, 0),
            ),
            count(sumOrNull(rows.map((r) => r.promptTokens))),
            count(sumOrNull(rows.map((r) => r.cacheReadTokens))),
            count(sumOrNull(rows.map((r) => r.cacheWriteTokens))),
            count(sumOrNull(rows.map((r) => r.outputTokens))),
            peaks.length === 0 ? UNKNOWN : formatTokens(Math.max(...peaks)),
            exact(sumOrNull(rows.map((r) => r.compactions))),
            exact(sumOrNull(rows.map((r) => r.overflows))),
            exact(sumOrNull(rows.map((r) => r.issues))),
            cost(
              totalPico(rows),
              rows.every((r) => r.costComplete),
            ),
          ],
        ]
      : [];
  return renderTable({ columns: TABLE_COLUMNS, rows: body, footer }, options);
}
