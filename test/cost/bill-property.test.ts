/**
 * Invariants of the bill on random sessions, and a differential check against the TypeScript
 * pricing reference (`priceRow`): the SQL bill must equal the sum of the reference over the
 * measured rows in the window, to the pico-dollar, whatever the grouping.
 *
 * Checked against deliberate bugs (each made this test fail):
 * - `timestamp_ms <= until_ms` instead of `<` in bill_report.sql (a request at the next midnight
 *   was billed to the last day of the window);
 * - `cost_cache_write_5m_pusd` without `- unknown_ttl_pusd` in bill_requests.sql (the class costs no
 *   longer add up to the cost);
 * - grouping `project` by `session_id` in bill_report.sql (line keys no longer the projects);
 * - `FILTER (WHERE subagent OR true)` for `subagent_requests`/`subagent_cost_pusd` in bill_report.sql
 *   (every request counted as sub-agent traffic).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillGrouping, BillLine } from '../../src/cost/bill.js';
import {
  BILL_GROUPINGS,
  billTable,
  insertBillSessions,
  insertSubagents,
  insertUnknownTtl,
  openBill,
} from '../../src/cost/bill.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import { priceRow } from '../../src/cost/price-request.js';
import type { Session } from '../../src/session/model.js';
import { measuredRows, unknownTtlWriteTokens } from '../../src/simulate/to-rows.js';
import { session, subagentRows, usage } from './bill-support.js';

const prices = loadBundledPriceTable();
let db: CostDb;
beforeAll(async () => {
  db = await CostDb.open({ prices });
  await openBill(db);
});
afterAll(() => db.close());

const DAY_MS = 86_400_000;
const DAY0_MS = Date.parse('2025-09-27T00:00:00Z');
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'MiniMax-M2.7', 'deepseek-chat', 'gpt-5.4', 'mystery-model'];
const PROJECTS = ['alpha', 'beta', null];

// Times on six days, biased to the midnights where a window or a price window starts.
const timeArb = fc.oneof(
  fc.constant(null),
  fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom(0, -1, 1, 43_200_000))
    .map(([day, offsetMs]) => DAY0_MS + day * DAY_MS + offsetMs),
  fc.integer({ min: DAY0_MS, max: DAY0_MS + 6 * DAY_MS }),
);
const usageArb = fc
  .record({
    uncached: fc.integer({ min: 0, max: 5_000 }),
    read: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 190_000, max: 520_000 })),
    w5m: fc.integer({ min: 0, max: 20_000 }),
    w1h: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
    out: fc.integer({ min: 0, max: 4_000 }),
    split: fc.boolean(),
  })
  .map((u) => usage(u));
const sessionsArb = fc
  .array(
    fc.record({
      project: fc.constantFrom(...PROJECTS),
      requests: fc.array(
        fc.record({
          model: fc.constantFrom(...MODELS),
          atMs: timeArb,
          usage: fc.option(usageArb, { freq: 8 }),
          agentId: fc.option(fc.constantFrom('sub-1', 'sub-2'), { freq: 2 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((specs) =>
    specs.map((spec, i) =>
      session(
        `s${i}`,
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
const windowArb = fc.record({
  sinceMs: fc.option(fc.integer({ min: 0, max: 5 }).map((d) => DAY0_MS + d * DAY_MS)),
  untilMs: fc.option(fc.integer({ min: 1, max: 6 }).map((d) => DAY0_MS + d * DAY_MS)),
});

async function load(sessions: readonly Session[]): Promise<void> {
  const tables = ['requests', 'bill_sessions', 'bill_unknown_ttl', 'bill_subagent'];
  for (const table of tables) await db.query(`DELETE FROM ${table}`);
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

const TOKEN_FIELDS = [
  'requests',
  'promptTokens',
  'uncachedInputTokens',
  'cacheReadTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'cacheWriteUnknownTtlTokens',
  'outputTokens',
  'unpricedRequests',
  'unpricedTokens',
  'longContextRequests',
] as const satisfies readonly (keyof BillLine)[];

type MoneyField = 'cost' | 'subagentCost' | 'ownCost';

type ClassField =
  'inputCost' | 'cacheReadCost' | 'cacheWrite5mCost' | 'cacheWrite1hCost' | 'cacheWriteUnknownTtlCost' | 'outputCost';

function pico(line: BillLine, field: MoneyField | ClassField): bigint {
  return line[field]?.picoUsd ?? 0n;
}

/** The machine a session was read on: three machines, chosen by the id so the grouping has something to join. */
function hostOf(s: Session): string {
  return `host-${(s.id.codePointAt(0) ?? 0) % 3}`;
}

function keyOf(s: Session, model: string, timestampMs: number | null, by: BillGrouping): string | null {
  switch (by) {
    case 'day':
      return timestampMs === null ? null : new Date(timestampMs).toISOString().slice(0, 10);
    case 'week': {
      if (timestampMs === null) return null;
      const monday = timestampMs - ((new Date(timestampMs).getUTCDay() + 6) % 7) * DAY_MS;
      return new Date(monday).toISOString().slice(0, 10);
    }
    case 'month':
      return timestampMs === null ? null : new Date(timestampMs).toISOString().slice(0, 7);
    case 'session':
      return s.id;
    case 'model':
      return model;
    case 'project':
      return s.project;
    case 'host':
      return hostOf(s);
    default: {
      const unreachable: never = by;
      return unreachable;
    }
  }
}

describe('bill invariants', () => {
  it('equals the TypeScript reference per group; lines add up to the total; classes add up to the prompt and the cost', async () => {
    await fc.assert(
      fc.asyncProperty(sessionsArb, fc.constantFrom(...BILL_GROUPINGS), windowArb, async (sessions, by, window) => {
        await load(sessions);
        const { lines, total } = await billTable(db, by, window);
        // Reference: each measured request in the window, priced by priceRow, summed per key.
        type Expected = {
          requests: number;
          costPico: bigint;
          unknownPico: bigint;
          unpriced: number;
          output: number;
          sub: number;
          subPriced: number;
          subPico: bigint;
        };
        const empty = (): Expected => ({
          requests: 0,
          costPico: 0n,
          unknownPico: 0n,
          unpriced: 0,
          output: 0,
          sub: 0,
          subPriced: 0,
          subPico: 0n,
        });
        const expected = new Map<string | null, Expected>();
        for (const s of sessions) {
          for (const row of measuredRows(s)) {
            const t = row.timestamp_ms;
            const inside =
              (window.sinceMs === null || (t !== null && t >= window.sinceMs)) &&
              (window.untilMs === null || (t !== null && t < window.untilMs));
            if (!inside) continue;
            const key = keyOf(s, row.model, t, by);
            const entry = expected.get(key) ?? empty();
            const cost = priceRow(prices, row);
            const request = s.requests[row.request_index];
            // Sub-agent traffic: the reference reads `agentId` off the session, not `bill_subagent`.
            if (request !== undefined && request.agentId !== null) {
              entry.sub += 1;
              if (cost !== null) {
                entry.subPriced += 1;
                entry.subPico += cost.totalPicoUsd;
              }
            }
            const unknown = request?.usage === null || request === undefined ? 0 : unknownTtlWriteTokens(request.usage);
            entry.requests += 1;
            entry.output += row.output_tokens;
            if (cost === null) entry.unpriced += 1;
            else {
              entry.costPico += cost.totalPicoUsd;
              entry.unknownPico +=
                priceRow(prices, { ...row, cache_write_5m_tokens: unknown })?.cacheWrite5mPicoUsd ?? 0n;
            }
            expected.set(key, entry);
          }
        }
        expect(new Set(lines.map((l) => l.key))).toEqual(new Set(expected.keys()));
        for (const line of lines) {
          const want = expected.get(line.key);
          expect(line.requests).toBe(want?.requests);
          expect(line.outputTokens).toBe(want?.output);
          expect(line.unpricedRequests).toBe(want?.unpriced);
          expect(pico(line, 'cost')).toBe(want?.costPico);
          expect(pico(line, 'cacheWriteUnknownTtlCost')).toBe(want?.unknownPico);
          expect(line.subagentRequests).toBe(want?.sub);
          expect(pico(line, 'subagentCost')).toBe(want?.subPico);
          // Sub-agent requests, none priced: no cost (never $0); no sub-agent request at all: $0.
          expect(line.subagentCost === null).toBe(want !== undefined && want.sub > 0 && want.subPriced === 0);
        }
        for (const line of [...lines, total]) {
          expect(line.promptTokens).toBe(
            line.uncachedInputTokens +
              line.cacheReadTokens +
              line.cacheWrite5mTokens +
              line.cacheWrite1hTokens +
              line.cacheWriteUnknownTtlTokens,
          );
          const classes = (
            [
              'inputCost',
              'cacheReadCost',
              'cacheWrite5mCost',
              'cacheWrite1hCost',
              'cacheWriteUnknownTtlCost',
              'outputCost',
            ] as const
          ).reduce((sum, f) => sum + pico(line, f), 0n);
          expect(classes).toBe(pico(line, 'cost'));
          // Unpriced never $0: a group with nothing priced has no cost at all.
          expect(line.cost === null).toBe(line.requests === line.unpricedRequests);
          // With and without sub-agents: the parts add up to the cost, the sub-agent part never exceeds it.
          expect(pico(line, 'subagentCost') + pico(line, 'ownCost')).toBe(pico(line, 'cost'));
          expect(pico(line, 'subagentCost') <= pico(line, 'cost')).toBe(true);
          expect(line.subagentRequests ?? 0).toBeLessThanOrEqual(line.requests);
        }
        expect(lines.reduce((sum, l) => sum + (l.subagentRequests ?? 0), 0)).toBe(total.subagentRequests);
        expect(lines.reduce((sum, l) => sum + pico(l, 'subagentCost'), 0n)).toBe(pico(total, 'subagentCost'));
        for (const field of TOKEN_FIELDS) expect(lines.reduce((sum, l) => sum + l[field], 0)).toBe(total[field]);
        expect(lines.reduce((sum, l) => sum + pico(l, 'cost'), 0n)).toBe(pico(total, 'cost'));
      }),
      { numRuns: 60 },
    );
  });
});
