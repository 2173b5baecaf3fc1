/** Test helper for the bill: hand-made sessions with measured usage only, and a loaded cost DB. */
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import {
  billTable,
  billUnpricedModels,
  insertBillSessions,
  insertSubagents,
  insertUnknownTtl,
  openBill,
} from '../../src/cost/bill.js';
import type { BillGrouping, BillTable, BillUnpricedModel, BillWindow } from '../../src/cost/bill.js';
import { CostDb } from '../../src/cost/db.js';
import type { MeasuredUsage, Request, Session } from '../../src/session/model.js';
import { measuredRows, unknownTtlWriteTokens } from '../../src/simulate/to-rows.js';

/** Usage from its classes; `split: false` = the log gave no 5m/1h split (all writes of unknown TTL in `w5m`). */
export function usage(u: {
  uncached?: number;
  read?: number;
  w5m?: number;
  w1h?: number;
  out?: number;
  split?: boolean;
}): MeasuredUsage {
  const [uncached, read, w5m, w1h, out] = [u.uncached ?? 0, u.read ?? 0, u.w5m ?? 0, u.w1h ?? 0, u.out ?? 0];
  const split = u.split ?? true;
  return {
    promptTokens: uncached + read + w5m + w1h,
    uncachedInputTokens: uncached,
    cacheReadTokens: read,
    cacheWriteTokens: w5m + w1h,
    cacheWrite5mTokens: split ? w5m : null,
    cacheWrite1hTokens: split ? w1h : null,
    outputTokens: out,
    reasoningTokens: null,
  };
}

/** `agentId`: the request is sub-agent traffic of the session (absent = the main agent). */
export type RequestSpec = {
  model: string;
  at: string | null;
  usage: MeasuredUsage | null;
  provider?: string;
  agentId?: string | null;
};

/** A session holding only requests (the bill needs nothing else). */
export function session(
  id: string,
  project: string | null,
  requests: readonly RequestSpec[],
  source: Session['source'] = 'claude-code',
): Session {
  return {
    id,
    source,
    title: null,
    project,
    files: [],
    items: [],
    requests: requests.map((spec, index): Request => ({
      index,
      itemIndex: 0,
      model: spec.model,
      provider: spec.provider ?? null,
      timestampMs: spec.at === null ? null : Date.parse(spec.at),
      usage: spec.usage,
      agentId: spec.agentId ?? null,
    })),
    events: [],
    issues: [],
    parentSessionId: null,
    totalsOnly: null,
  };
}

/** Loads sessions into a fresh in-memory cost DB the way `cachecost report` does. */
export async function billDb(sessions: readonly Session[]): Promise<CostDb> {
  const db = await CostDb.open({ prices: loadBundledPriceTable() });
  await openBill(db);
  await loadBillSessions(db, sessions, () => 'this-machine');
  return db;
}

/** Appends sessions to an open bill the way `cachecost report --db` does, each on the host `hostOf` gives. */
export async function loadBillSessions(
  db: CostDb,
  sessions: readonly Session[],
  hostOf: (s: Session) => string | null,
): Promise<void> {
  for (const s of sessions) {
    await db.insertRequests(measuredRows(s));
    await insertBillSessions(db, [{ session_id: s.id, project: s.project, host: hostOf(s) }]);
    await insertUnknownTtl(
      db,
      s.requests.map((r) => ({
        session_id: s.id,
        request_index: r.index,
        write_unknown_ttl_tokens: r.usage === null ? 0 : unknownTtlWriteTokens(r.usage),
      })),
    );
    await insertSubagents(db, subagentRows(s));
  }
}

/** The session's measured sub-agent requests, as `report` records them. */
export function subagentRows(s: Session): { session_id: string; request_index: number }[] {
  return s.requests
    .filter((r) => r.usage !== null && r.agentId !== null)
    .map((r) => ({ session_id: s.id, request_index: r.index }));
}

export const OPEN: BillWindow = { sinceMs: null, untilMs: null };

/** One grouping of the given sessions. */
export async function bill(
  sessions: readonly Session[],
  by: BillGrouping,
  window: BillWindow = OPEN,
): Promise<BillTable & { unpriced: BillUnpricedModel[] }> {
  const db = await billDb(sessions);
  try {
    return { ...(await billTable(db, by, window)), unpriced: await billUnpricedModels(db, window) };
  } finally {
    db.close();
  }
}

/** Micro-dollars (USD per MTok × tokens) as pico-dollars: hand computations are in µ$. */
export function micro(usdMicro: number): bigint {
  return BigInt(usdMicro) * 1_000_000n;
}
