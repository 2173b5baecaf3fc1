/**
 * Renderings of `SessionSummary` rows (`cachecost sessions`): the CSV columns (exact integers,
 * camelCase headers equal to the JSON keys) and the terminal table (compact numbers, a total row).
 */
import type { SessionSummary } from '../session/summary.js';
import { formatCompactCount } from '../format/compact-number.js';
import type { CsvColumn } from './csv.js';
import { renderTable, type TableColumn } from './table.js';

/** CSV columns in the order of the JSON keys; `models` is joined with `;`, unknown totals are empty cells. */
export const SESSION_SUMMARY_COLUMNS: readonly CsvColumn<SessionSummary>[] = [
  { header: 'sessionId', value: (row) => row.sessionId },
  { header: 'source', value: (row) => row.source },
  { header: 'models', value: (row) => row.models.join(';') },
  { header: 'userMessages', value: (row) => row.userMessages },
  { header: 'requests', value: (row) => row.requests },
  { header: 'requestsWithoutUsage', value: (row) => row.requestsWithoutUsage },
  { header: 'promptTokens', value: (row) => row.promptTokens },
  { header: 'cacheReadTokens', value: (row) => row.cacheReadTokens },
  { header: 'cacheWriteTokens', value: (row) => row.cacheWriteTokens },
  { header: 'outputTokens', value: (row) => row.outputTokens },
  { header: 'peakContextTokens', value: (row) => row.peakContextTokens },
  { header: 'compactions', value: (row) => row.compactions },
  { header: 'overflows', value: (row) => row.overflows },
  { header: 'issues', value: (row) => row.issues },
];

const TABLE_COLUMNS: readonly TableColumn[] = [
  { header: 'Session', align: 'left' },
  { header: 'Source', align: 'left' },
  { header: 'Models', align: 'left' },
  { header: 'User msgs', align: 'right' },
  { header: 'Requests', align: 'right' },
  { header: 'Prompt', align: 'right' },
  { header: 'Cache read', align: 'right' },
  { header: 'Cache write', align: 'right' },
  { header: 'Output', align: 'right' },
  { header: 'Peak ctx', align: 'right' },
  { header: 'Compactions', align: 'right' },
  { header: 'Overflows', align: 'right' },
  { header: 'Issues', align: 'right' },
];

const UNKNOWN = '-';
const SHORT_ID_CHARS = 8;

/** UUID-length ids are shown by their first 8 characters (the way FreeCode's docs name sessions); JSON/CSV keep them whole. */
function shortId(id: string): string {
  return id.length > SHORT_ID_CHARS + 4 ? `${id.slice(0, SHORT_ID_CHARS)}…` : id;
}

function count(value: number | null): string {
  return value === null ? UNKNOWN : formatCompactCount(value);
}

function sumOrNull(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}

/** Requests with measured usage, and apart those whose log reports none (never priced): `9 (+2 no usage)`. */
function requestsCell(measured: number | null, withoutUsage: number): string {
  return withoutUsage === 0 ? count(measured) : `${count(measured)} (+${formatCompactCount(withoutUsage)} no usage)`;
}

/** The `sessions` table: one row per session, plus a total row when there is more than one. */
export function renderSessionSummaryTable(rows: readonly SessionSummary[]): string {
  const body = rows.map((row) => [
    shortId(row.sessionId),
    row.source,
    row.models.join(', '),
    count(row.userMessages),
    requestsCell(row.requests, row.requestsWithoutUsage),
    count(row.promptTokens),
    count(row.cacheReadTokens),
    count(row.cacheWriteTokens),
    count(row.outputTokens),
    count(row.peakContextTokens),
    count(row.compactions),
    count(row.overflows),
    count(row.issues),
  ]);
  const peaks = rows.map((row) => row.peakContextTokens).filter((value): value is number => value !== null);
  const footer =
    rows.length > 1
      ? [
          [
            `Total (${rows.length})`,
            '',
            '',
            count(sumOrNull(rows.map((r) => r.userMessages))),
            requestsCell(sumOrNull(rows.map((r) => r.requests)), rows.reduce((n, r) => n + r.requestsWithoutUsage, 0)),
            count(sumOrNull(rows.map((r) => r.promptTokens))),
            count(sumOrNull(rows.map((r) => r.cacheReadTokens))),
            count(sumOrNull(rows.map((r) => r.cacheWriteTokens))),
            count(sumOrNull(rows.map((r) => r.outputTokens))),
            peaks.length === 0 ? UNKNOWN : formatCompactCount(Math.max(...peaks)),
            count(sumOrNull(rows.map((r) => r.compactions))),
            count(sumOrNull(rows.map((r) => r.overflows))),
            count(sumOrNull(rows.map((r) => r.issues))),
          ],
        ]
      : [];
  return renderTable({ columns: TABLE_COLUMNS, rows: body, footer });
}
