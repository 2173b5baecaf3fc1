/**
 * The bill use case (`cachecost report`): the recorded cost by day, session, model or project. No
 * simulation: every request's measured usage becomes a `measured` row, priced in DuckDB by the
 * same SQL as `simulate` (`cost/bill.ts`), and grouped there.
 */
import type { BillGrouping } from '../cost/bill.js';
import type { BillReport } from '../report/bill-report.js';
import type { Session } from '../session/model.js';
import { billWindow } from './bill-window.js';
import { forEachSession } from './for-each-session.js';
import { resolvePrices } from './prices.js';

export type BillOptions = {
  /** Log files or directories of any supported agent. */
  readonly paths: readonly string[];
  /** Default `day` (the UTC date of each request). */
  readonly by?: BillGrouping;
  /** First UTC day to include, `YYYY-MM-DD`; null or absent = unbounded. */
  readonly since?: string | null;
  /** Last UTC day to include (inclusive), `YYYY-MM-DD`; null or absent = unbounded. */
  readonly until?: string | null;
  /** A price file overlaying the bundled table (models.dev `api.json` or a LiteLLM map). */
  readonly pricingFile?: string | null;
};

/** Loads every session under the paths, prices its measured requests and returns the bill. */
export async function billSessions(options: BillOptions): Promise<BillReport> {
  const since = options.since ?? undefined;
  const until = options.until ?? undefined;
  const by = options.by ?? 'day';
  const window = billWindow(since, until);
  const [{ CostDb }, bill, { measuredRows, unknownTtlWriteTokens }, { buildBillReport }] = await Promise.all([
    import('../cost/db.js'),
    import('../cost/bill.js'),
    import('../simulate/to-rows.js'),
    import('../report/bill-report.js'),
  ]);
  const db = await CostDb.open({ prices: await resolvePrices(options.pricingFile), path: null });
  try {
    await bill.openBill(db);
    const seen = new Set<string>();
    let totalsOnlySessions = 0;
    let requestsWithoutUsage = 0;
    let undatedRequestsOutsideWindow = 0;
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    const issues = await forEachSession(options.paths, { content: 'sizes' }, async (session: Session) => {
      if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
        totalsOnlySessions += 1;
        return;
      }
      const measured = session.requests.filter((request) => request.usage !== null);
      requestsWithoutUsage += session.requests.length - measured.length;
      if (bounded) undatedRequestsOutsideWindow += measured.filter((request) => request.timestampMs === null).length;
      await db.insertRequests(measuredRows(session));
      if (!seen.has(session.id)) await bill.insertBillSessions(db, [{ session_id: session.id, project: session.project }]);
      seen.add(session.id);
      await bill.insertUnknownTtl(
        db,
        measured.map((request) => ({
          session_id: session.id,
          request_index: request.index,
          write_unknown_ttl_tokens: request.usage === null ? 0 : unknownTtlWriteTokens(request.usage),
        })),
      );
    });
    return buildBillReport({
      by,
      since: since ?? null,
      until: until ?? null,
      table: await bill.billTable(db, by, window),
      unpricedModels: await bill.billUnpricedModels(db, window),
      excluded: { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow },
      issues,
    });
  } finally {
    db.close();
  }
}
