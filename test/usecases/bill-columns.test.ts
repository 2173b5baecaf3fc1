/**
 * `BillAggregator.addColumns` (a whole session folded from its run pack columns, what a re-run of
 * `report` does) must leave the bill exactly as `add` of each of the session's measured requests:
 * every line and column, the breakdown, the unpriced models, and the counts the report prints
 * (requests without usage, undated requests outside a window), for every grouping, zone, window.
 * Sessions are mixed: some folded from columns, some added request by request into one aggregator.
 * Checked against deliberate bugs: the model's price kept when the model changes within a session
 * (`modelPrice` not reset), the undated count taken only inside the window, the group kept
 * when the key changes within a session (by day), and the reused row's sub-agent flag never reset
 * after a sub-agent request. The one-group fold (by session, project or host without breakdown,
 * `addColumnsToGroup`): the set of rates' sums kept when the rates change, the group made for a
 * session none of whose requests is in the window, and a model left out of the group's models
 * after its first. Prompts fall on a long-context threshold and one past it: the fold's base-rate
 * shortcut taken one token past the threshold failed it.
 *
 * A session whose models are each priced alike at every time, every request within its price's
 * base tier, is folded from its stored sums (`addSums`) when the bill is by session, project or
 * host, without breakdown or window: the second property draws mostly such sessions (and some
 * that fall back to the requests). Checked against deliberate bugs: sub-agent sums added to the
 * main agent's, the largest-prompt check left out, the last timestamp not kept, the priced
 * sub-agent count not kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BillAggregator } from '../../src/cost/bill-aggregate.js';
import { BILL_GROUPINGS } from '../../src/cost/bill-groupings.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { priceAt } from '../../src/cost/price-table.js';
import { decodeSession, encodeSession, packedRequestsOf } from '../../src/ingest/session-codec.js';
import type { MeasuredUsage, Request, Session } from '../../src/session/model.js';
import { measuredBillRequests } from '../../src/simulate/to-rows.js';
import { billWindow } from '../../src/usecases/bill-window.js';
import { PACKED_LAYOUT } from '../../src/usecases/bill.js';

const prices = loadBundledPriceTable();
const DAY_MS = 86_400_000;
const DAY0_MS = Date.parse('2025-09-27T00:00:00Z');
// Priced, priced with a long-context tier, priced with a price change, unpriced, and no model.
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'deepseek-chat', 'gpt-5.4', 'mystery-model', ''];

const count = (max: number) => fc.integer({ min: 0, max });
/** Usage whose cache reads are drawn from `read` (the other classes alike), split or not into 5m and 1h writes. */
function usageOf(read: fc.Arbitrary<number>): fc.Arbitrary<MeasuredUsage> {
  return fc
    .record({
      uncached: count(5_000),
      read,
      w5m: fc.option(count(20_000)),
      w1h: fc.option(count(20_000)),
      out: count(4_000),
    })
    .map(({ uncached, read, w5m, w1h, out }) => ({
      promptTokens: uncached + read + (w5m ?? 0) + (w1h ?? 0),
      uncachedInputTokens: uncached,
      cacheReadTokens: read,
      cacheWriteTokens: (w5m ?? 0) + (w1h ?? 0),
      cacheWrite5mTokens: w5m,
      cacheWrite1hTokens: w1h,
      outputTokens: out,
      reasoningTokens: null,
    }));
}
const spreadUsageArb = usageOf(fc.oneof(count(100_000), fc.integer({ min: 190_000, max: 520_000 })));
// The long-context thresholds of the models' prices: a prompt of exactly that many tokens is
// priced at the base rates, one more at the tier's (the fold takes base rates without `ratesFor`).
const THRESHOLDS = [
  ...new Set(MODELS.flatMap((model) => priceAt(prices, model, null)?.longContext?.thresholdTokens ?? [])),
];
const edgeUsageArb: fc.Arbitrary<MeasuredUsage> = fc
  .record({
    edge: fc.constantFrom(...THRESHOLDS),
    past: fc.constantFrom(0, 1),
    uncached: count(5_000),
    w5m: fc.option(count(20_000)),
    w1h: fc.option(count(20_000)),
    out: count(4_000),
  })
  .map(({ edge, past, uncached, w5m, w1h, out }) => ({
    promptTokens: edge + past,
    uncachedInputTokens: uncached,
    cacheReadTokens: edge + past - uncached - (w5m ?? 0) - (w1h ?? 0),
    cacheWriteTokens: (w5m ?? 0) + (w1h ?? 0),
    cacheWrite5mTokens: w5m,
    cacheWrite1hTokens: w1h,
    outputTokens: out,
    reasoningTokens: null,
  }));
const usageArb = fc.oneof({ arbitrary: spreadUsageArb, weight: 4 }, { arbitrary: edgeUsageArb, weight: 1 });
const requestArb: fc.Arbitrary<Omit<Request, 'index'>> = fc.record({
  itemIndex: fc.constant(0),
  model: fc.constantFrom(...MODELS),
  provider: fc.constant(null),
  timestampMs: fc.option(fc.integer({ min: DAY0_MS - DAY_MS, max: DAY0_MS + 8 * DAY_MS })),
  usage: fc.option(usageArb, { freq: 6 }),
  agentId: fc.option(fc.constantFrom('sub-1', 'sidechain:x')),
});
/** Up to five Claude Code sessions of up to `maxRequests` requests drawn from `request`, as the codec stores them. */
function sessionsOf(request: fc.Arbitrary<Omit<Request, 'index'>>, maxRequests: number): fc.Arbitrary<Session[]> {
  return fc
    .array(
      fc.record({
        id: fc.constantFrom('s0', 's1', 'é2', 's3'),
        project: fc.option(fc.constantFrom('/home/a/alpha', 'Ünïcode')),
        requests: fc.array(request, { maxLength: maxRequests }),
      }),
      { maxLength: 5 },
    )
    .map((specs) =>
      specs.map(({ id, project, requests }) => ({
        id,
        source: 'claude-code' as const,
        title: null,
        project,
        files: [],
        items: [],
        // In the model's key order, which the codec keeps (a session of another shape is stored as JSON).
        requests: requests.map((request, index) => ({ index, ...request })),
        events: [],
        issues: [],
        parentSessionId: null,
        totalsOnly: null,
      })),
    );
}
const sessionsArb = sessionsOf(requestArb, 9);
const dateArb = fc.integer({ min: -1, max: 8 }).map((d) => new Date(DAY0_MS + d * DAY_MS).toISOString().slice(0, 10));

describe('a session folded from its columns', () => {
  it('leaves the bill as adding its requests one by one', () => {
    fc.assert(
      fc.property(
        sessionsArb,
        fc.constantFrom(...BILL_GROUPINGS),
        fc.boolean(),
        fc.constantFrom('UTC', 'Europe/Paris', 'Pacific/Chatham'),
        fc.option(dateArb, { freq: 3 }),
        fc.option(dateArb, { freq: 3 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (sessions, by, breakdown, timeZone, since, until, byColumns) => {
          if (since !== null && until !== null && since > until) return;
          const window = billWindow(since ?? undefined, until ?? undefined, timeZone);
          const bounded = window.sinceMs !== null || window.untilMs !== null;
          const options = { by, window, timeZone, breakdown };
          const expected = new BillAggregator(prices, options);
          const actual = new BillAggregator(prices, options);
          let expectedUndated = 0;
          let expectedMeasured = 0;
          const counts = { measured: 0, undated: 0 };
          for (const [i, s] of sessions.entries()) {
            const host = i % 2 === 0 ? 'host-a' : null;
            const place = { project: s.project, host };
            const requests = measuredBillRequests(s, place);
            for (const request of requests) expected.add(request);
            expectedMeasured += requests.length;
            if (bounded) expectedUndated += requests.filter((request) => request.timestampMs === null).length;
            const columns = packedRequestsOf(decodeSession(encodeSession(s)));
            expect(columns).toBeDefined();
            if (columns === undefined) return;
            if (byColumns[i] === true) actual.addColumns(s.id, place, columns, PACKED_LAYOUT, counts);
            else {
              for (const request of requests) actual.add(request);
              counts.measured += requests.length;
              if (bounded) counts.undated += requests.filter((request) => request.timestampMs === null).length;
            }
          }
          expect(actual.table()).toEqual(expected.table());
          expect(actual.unpricedModels()).toEqual(expected.unpricedModels());
          expect(counts).toEqual({ measured: expectedMeasured, undated: expectedUndated });
        },
      ),
      { numRuns: 400 },
    );
  });
});

// Models priced alike at every time with every class priced (the sums apply below their
// long-context threshold, where there is one), and a few that make a session fall back.
const SUMMED_MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'claude-haiku-4-5'];
const FALLBACK_MODELS = ['gpt-5.4', 'deepseek-chat', 'mystery-model', ''];
const baseUsageArb = usageOf(count(150_000));
const summedRequestArb: fc.Arbitrary<Omit<Request, 'index'>> = fc.record({
  itemIndex: fc.constant(0),
  model: fc.oneof(
    { arbitrary: fc.constantFrom(...SUMMED_MODELS), weight: 12 },
    { arbitrary: fc.constantFrom(...FALLBACK_MODELS), weight: 1 },
  ),
  provider: fc.constant(null),
  timestampMs: fc.option(fc.integer({ min: DAY0_MS - DAY_MS, max: DAY0_MS + 8 * DAY_MS }), { freq: 4 }),
  usage: fc.option(fc.oneof({ arbitrary: baseUsageArb, weight: 12 }, { arbitrary: edgeUsageArb, weight: 1 }), {
    freq: 8,
  }),
  agentId: fc.option(fc.constantFrom('sub-1', 'sidechain:x'), { freq: 2 }),
});
const summedSessionsArb = sessionsOf(summedRequestArb, 7);

describe('a session folded from its stored sums', () => {
  it('leaves the bill as adding its requests one by one, from the sums where they apply', () => {
    fc.assert(
      fc.property(
        summedSessionsArb,
        fc.constantFrom('session', 'project', 'host'),
        fc.option(dateArb, { freq: 6 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (sessions, by, since, byColumns) => {
          const window = billWindow(since ?? undefined, undefined, 'UTC');
          const options = { by, window, timeZone: 'UTC', breakdown: false };
          const expected = new BillAggregator(prices, options);
          const actual = new BillAggregator(prices, options);
          const counts = { measured: 0, undated: 0 };
          let expectedMeasured = 0;
          let expectedUndated = 0;
          for (const [i, s] of sessions.entries()) {
            const place = { project: s.project, host: i % 2 === 0 ? 'host-a' : null };
            const requests = measuredBillRequests(s, place);
            for (const request of requests) expected.add(request);
            expectedMeasured += requests.length;
            if (since !== null) expectedUndated += requests.filter((request) => request.timestampMs === null).length;
            const columns = packedRequestsOf(decodeSession(encodeSession(s)));
            expect(columns?.sums).toBeDefined();
            if (columns === undefined) return;
            if (byColumns[i] !== false) actual.addColumns(s.id, place, columns, PACKED_LAYOUT, counts);
            else {
              for (const request of requests) actual.add(request);
              counts.measured += requests.length;
              if (since !== null) counts.undated += requests.filter((request) => request.timestampMs === null).length;
            }
          }
          expect(actual.table()).toEqual(expected.table());
          expect(actual.unpricedModels()).toEqual(expected.unpricedModels());
          expect(counts).toEqual({ measured: expectedMeasured, undated: expectedUndated });
        },
      ),
      { numRuns: 400 },
    );
  });
});
