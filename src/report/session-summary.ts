/**
 * `sessions` rows (`cachecost sessions`): each session's summary with its measured cost, as JSON
 * and CSV columns (exact integers and exact USD, camelCase headers equal to the JSON keys). The
 * terminal table is `session-summary-table.ts`, loaded only when a table is printed.
 */
import { formatPicoUsd } from '../cost/money.js';
import { priceRow } from '../cost/price-request.js';
import type { PriceTable } from '../cost/price-table.js';
import type { Session } from '../session/model.js';
import type { SessionSummary } from '../session/summary.js';
import { measuredRows } from '../simulate/to-rows.js';
import type { CsvColumn } from './csv.js';

/** A session's measured usage priced request by request (the pricing reference, `priceRow`). */
export type SessionCostFields = {
  /** Exact USD over the priced requests; null when none is priced (unpriced, never $0). */
  readonly costUsd: string | null;
  /** False when some measured requests are unpriced (the cost leaves them out). */
  readonly costComplete: boolean;
  readonly unpricedRequests: number;
};

/** One row of `cachecost sessions`: the summary and its cost. */
export type SessionRow = SessionSummary & SessionCostFields;

/** Prices every measured request of the session. */
export function sessionCost(session: Session, prices: PriceTable): SessionCostFields {
  let picoUsd = 0n;
  let priced = 0;
  let unpriced = 0;
  for (const row of measuredRows(session)) {
    const cost = priceRow(prices, row);
    if (cost === null) unpriced += 1;
    else {
      priced += 1;
      picoUsd += cost.totalPicoUsd;
    }
  }
  return {
    costUsd: priced === 0 ? null : formatPicoUsd(picoUsd),
    costComplete: unpriced === 0,
    unpricedRequests: unpriced,
  };
}

/** CSV columns in the order of the JSON keys; `models` is joined with `;`, unknown totals are empty cells. */
export const SESSION_SUMMARY_COLUMNS: readonly CsvColumn<SessionRow>[] = [
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
  { header: 'costUsd', value: (row) => row.costUsd },
  { header: 'costComplete', value: (row) => row.costComplete },
  { header: 'unpricedRequests', value: (row) => row.unpricedRequests },
];
