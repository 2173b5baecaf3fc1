/**
 * Differential test: the TypeScript bill (`cost/bill-aggregate.ts`, what `report` prints without
 * `--db`) equals the SQL bill (`billTable` + `billUnpricedModels` over `sql/bill_*.sql`, what a
 * `--db` run and `report --from` print) on random sessions: every line, every column (tokens,
 * counts, first/last times, models, each class cost, the sub-agent split, the unpriced markers,
 * the cache hit rate), the line order and the breakdown, for every grouping, time zones whose days
 * differ from UTC, windows, and with and without `--breakdown`.
 *
 * Checked against deliberate bugs (each made this test fail within the first runs):
 * - the week named by its Sunday instead of its Monday in `weekOf`;
 * - `row.timestampMs > untilMs` instead of `>=` for the window's exclusive end;
 * - the unknown-TTL cost left inside `cacheWrite5mCost` (no `- writeUnknown`);
 * - `subagentCost` 0 instead of null when a group's sub-agent requests are all unpriced;
 * - sessions ordered by cost instead of by their first request;
 * - the unknown-TTL cost NULL instead of $0 in a group whose only unpriced requests have no
 *   unknown-TTL writes (`unknownTtlZero` ignored in `settle`);
 * - a model's first price window taken for every time (`timeless` without its open-at-both-ends
 *   check: deepseek-chat's price change was missed);
 * - a group's session set updated only for its first session (`lastSession` check inverted).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillAggregator } from '../../src/cost/bill-aggregate.js';
import type { BillGrouping, BillLine, BillTable } from '../../src/cost/bill.js';
import { BILL_GROUPINGS, billTable, billUnpricedModels, openBill } from '../../src/cost/bill.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import type { Session } from '../../src/session/model.js';
import { measuredBillRequests } from '../../src/simulate/to-rows.js';
import { billWindow, zonedMidnightMs } from '../../src/usecases/bill-window.js';
import { loadBillSessions, session, usage } from './bill-support.js';

const prices = loadBundledPriceTable();
let db: CostDb;
beforeAll(async () => {
  db = await CostDb.open({ prices });
  await openBill(db);
});
afterAll(() => db.close());

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A Sunday, two days before deepseek-chat's price change and in the week of a DST change in Europe. */
const DAY0_MS = Date.parse('2025-09-27T00:00:00Z');
const MODELS = [
  'claude-sonnet-4-5',
  'claude-opus-4-6',
  'claude-sonnet-5',
  'MiniMax-M2.7',
  'deepseek-chat',
  'gpt-5.4',
  'mystery-model',
  'Zeta-éclair',
];
const PROJECTS = ['/home/a/alpha', '/home/a/beta', 'Ünïcode', null];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns'];

// Times over eight days, biased to the hours around midnight in the zones above (UTC−5 … UTC+13:45).
const timeArb = (zone: string) =>
  fc.oneof(
    fc.constant(null),
    fc
      .tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: -14, max: 14 }), fc.constantFrom(0, -1, 1, 1_800_000))
      .map(([day, hour, offsetMs]) => DAY0_MS + day * DAY_MS + hour * HOUR_MS + offsetMs),
    fc.integer({ min: DAY0_MS - DAY_MS, max: DAY0_MS + 8 * DAY_MS }),
    // A zone's midnight ± 1 ms: where a day, a week and the window change there.
    {
      weight: 3,
      arbitrary: fc.tuple(fc.integer({ min: -1, max: 8 }), fc.constantFrom(0, 0, -1, 1)).map(([day, offsetMs]) => {
        const date = new Date(DAY0_MS + day * DAY_MS);
        return zonedMidnightMs([date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()], zone) + offsetMs;
      }),
    },
  );
const usageArb = fc
  .record({
    uncached: fc.integer({ min: 0, max: 5_000 }),
    read: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 190_000, max: 520_000 })),
    w5m: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
    w1h: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
    out: fc.integer({ min: 0, max: 4_000 }),
    split: fc.boolean(),
  })
  .map((u) => usage(u));
const sessionsArb = (zone: string) =>
  fc
    .array(
      fc.record({
        id: fc.constantFrom('s0', 's1', 'S2', 'é3', 's4'),
        project: fc.constantFrom(...PROJECTS),
        requests: fc.array(
          fc.record({
            model: fc.constantFrom(...MODELS),
            atMs: timeArb(zone),
            usage: fc.option(usageArb, { freq: 8 }),
            agentId: fc.option(fc.constantFrom('sub-1', 'sub-2'), { freq: 2 }),
          }),
          { minLength: 1, maxLength: 7 },
        ),
      }),
      { minLength: 0, maxLength: 4 },
    )
    // One session per id, as discovery gives them.
    .map((specs) => [...new Map(specs.map((spec) => [spec.id, spec])).values()])
    .map((specs) =>
      specs.map((spec) =>
        session(
          spec.id,
          spec.project,
          spec.requests.map((r) => ({
            model: r.model,
            at: r.atMs === null ? null : new Date(r.atMs).toISOString(),
            usage: r.usage,
            agentId: r.agentId,
          })),
        ),
      ),
    );
const dateArb = fc.integer({ min: -1, max: 8 }).map((d) => new Date(DAY0_MS + d * DAY_MS).toISOString().slice(0, 10));
const optionsArb = fc.record({
  timeZone: fc.constant('UTC'),
  by: fc.constantFrom(...BILL_GROUPINGS),
  breakdown: fc.boolean(),
  since: fc.option(dateArb, { freq: 3 }),
  until: fc.option(dateArb, { freq: 3 }),
});

function hostOf(s: Session): string | null {
  const code = s.id.codePointAt(1) ?? 0;
  return code % 3 === 0 ? null : `host-${code % 3}`;
}

async function loadSql(sessions: readonly Session[]): Promise<void> {
  for (const table of ['requests', 'bill_sessions', 'bill_unknown_ttl', 'bill_subagent'])
    await db.query(`DELETE FROM ${table}`);
  await loadBillSessions(db, sessions, hostOf);
}

function aggregate(
  sessions: readonly Session[],
  options: { by: BillGrouping; timeZone: string; breakdown: boolean },
  window: { sinceMs: number | null; untilMs: number | null },
): BillAggregator {
  const aggregator = new BillAggregator(prices, { ...options, window });
  for (const s of sessions)
    for (const request of measuredBillRequests(s, { project: s.project, host: hostOf(s) })) aggregator.add(request);
  return aggregator;
}

/**
 * SQL orders a group's models by (first request for sessions,) cost, and leaves equal ones in any
 * order: those are put in model order here, which is the TypeScript bill's documented tie-break.
 */
function settleTies(table: BillTable, by: BillGrouping): BillTable {
  const cost = (line: BillLine): bigint | null => line.cost?.picoUsd ?? null;
  const order = (a: BillLine, b: BillLine): number => {
    if (by === 'session' && a.firstTimestampMs !== b.firstTimestampMs) {
      if (a.firstTimestampMs === null) return 1;
      if (b.firstTimestampMs === null) return -1;
      return a.firstTimestampMs - b.firstTimestampMs;
    }
    const [ca, cb] = [cost(a), cost(b)];
    if (ca !== cb) {
      if (ca === null) return 1;
      if (cb === null) return -1;
      return ca > cb ? -1 : 1;
    }
    // Code point order (DuckDB's binary collation), not UTF-16 order.
    return Buffer.compare(Buffer.from(a.key ?? ''), Buffer.from(b.key ?? ''));
  };
  return { ...table, lines: table.lines.map((line) => ({ ...line, breakdown: [...line.breakdown].sort(order) })) };
}

describe('the TypeScript bill equals the SQL bill', () => {
  it('every line, column and order, for every grouping, zone, window and breakdown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ZONES).chain((zone) =>
          fc.tuple(
            sessionsArb(zone),
            optionsArb.map((o) => ({ ...o, timeZone: zone })),
          ),
        ),
        async ([sessions, options]) => {
          const { since, until, ...cut } = options;
          if (since !== null && until !== null && since > until) return;
          const window = billWindow(since ?? undefined, until ?? undefined, cut.timeZone);
          await loadSql(sessions);
          const sql = await billTable(db, cut.by, window, {
            timeZone: cut.timeZone,
            breakdown: cut.breakdown,
            subagentsKnown: true,
          });
          const sqlUnpriced = await billUnpricedModels(db, window);
          const ts = aggregate(sessions, cut, window);
          expect(ts.table()).toEqual(settleTies(sql, cut.by));
          expect(ts.unpricedModels()).toEqual(sqlUnpriced);
        },
      ),
      { numRuns: 120 },
    );
  }, 240_000);
});
