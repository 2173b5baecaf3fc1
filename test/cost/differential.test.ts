/**
 * Differential test: the SQL reports (costs computed in DuckDB from `requests` ⋈ `prices`) agree
 * with the TypeScript pricing reference (`priceRow`) to the last pico-dollar, on random rows that
 * straddle the date-effective boundaries, the long-context thresholds, unpriced models and 1h writes.
 *
 * Checked against deliberate bugs (each made this test fail within a few runs):
 * - `>=` instead of `>` for the long-context threshold in request_costs.sql;
 * - `<=` instead of `<` for the exclusive end of a price window;
 * - an unpriced request costed as 0 (`coalesce(..., 0)`) instead of NULL.
 * The frozen snapshot (`CostDb.withFrozenCosts`) failed its property with a snapshot that left out
 * rejected overflows, and with the snapshot table never dropped.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import { priceRow } from '../../src/cost/price-request.js';
import type { RequestCost } from '../../src/cost/price-request.js';
import type { Money } from '../../src/cost/reports.js';
import type { RequestKind, RequestRow } from '../../src/cost/rows.js';
import { windowedArb } from './price-arbitraries.js';

const table = loadBundledPriceTable();
let db: CostDb;

beforeAll(async () => {
  db = await CostDb.open({ prices: table });
});
afterAll(() => db.close());

const MODELS = [
  'claude-sonnet-4-5',
  'anthropic/claude-sonnet-4-5',
  'claude-sonnet-4-20250514',
  'claude-sonnet-5',
  'claude-opus-4-6',
  'MiniMax-M3',
  'gpt-5',
  'gpt-5.4',
  'gpt-4',
  'deepseek-chat',
  'gemini-2.5-pro',
  'default',
  'meta-llama/llama-4-maverick',
];

/** Price-window and tier boundaries of the bundled table that the rows straddle. */
const BOUNDARIES_MS = [
  Date.parse('2026-09-01T00:00:00Z'),
  Date.parse('2025-09-05T00:00:00Z'),
  Date.parse('2025-09-29T00:00:00Z'),
];
const THRESHOLDS = [200_000, 272_000, 512_000];

const timestampArb = fc.oneof(
  fc.constant(null),
  fc.tuple(fc.constantFrom(...BOUNDARIES_MS), fc.integer({ min: -3, max: 3 })).map(([b, d]) => b + d),
  fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
);

const promptArb = fc.oneof(
  fc.tuple(fc.constantFrom(...THRESHOLDS), fc.integer({ min: -2, max: 2 })).map(([t, d]) => t + d),
  fc.integer({ min: 0, max: 700_000 }),
  fc.integer({ min: 0, max: 5_000 }),
);

const fractionArb = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1000 }));

const rowArb = fc
  .record({
    session: fc.constantFrom('s1', 's2', 's3'),
    scenario: fc.constantFrom('measured', 'recorded', 'none', 'freecode'),
    modelAt: fc.oneof(fc.record({ model: fc.constantFrom(...MODELS), timestampMs: timestampArb }), windowedArb),
    kind: fc.constantFrom<RequestKind>('request', 'request', 'request', 'summarize', 'rejected_overflow'),
    prompt: promptArb,
    fractions: fc.tuple(fractionArb, fractionArb, fractionArb),
    output: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 64_000 })),
  })
  .map(({ session, scenario, modelAt, kind, prompt, fractions, output }): RequestRow => {
    const { model, timestampMs } = modelAt;
    const [f1, f2, f3] = fractions;
    const billed = kind !== 'rejected_overflow';
    const read = billed ? Math.floor((prompt * f1) / 1000) : 0;
    const write5m = billed ? Math.floor(((prompt - read) * f2) / 1000) : 0;
    const write1h = billed ? Math.floor(((prompt - read - write5m) * f3) / 1000) : 0;
    return {
      session_id: session,
      source: 'freecode',
      model,
      scenario,
      request_index: 0,
      timestamp_ms: timestampMs,
      kind,
      prompt_tokens: prompt,
      cache_read_tokens: read,
      cache_write_5m_tokens: write5m,
      cache_write_1h_tokens: write1h,
      uncached_input_tokens: billed ? prompt - read - write5m - write1h : 0,
      output_tokens: billed ? output : 0,
      context_tokens_after: prompt + output,
      compaction_before: false,
      overflow_retries: 0,
      modelled: kind === 'request',
    };
  });

type Expected = {
  cost: bigint | null;
  input: bigint | null;
  output: bigint | null;
  write1h: bigint | null;
  unpriced: number;
  unpricedPrompt: number;
  longContext: number;
};

/** The TypeScript reference aggregation of `session_costs`: priced costs summed, null when none is priced. */
function reference(rows: readonly RequestRow[], key: (row: RequestRow) => string): Map<string, Expected> {
  const groups = new Map<string, Expected>();
  const add = (sum: bigint | null, value: bigint): bigint => (sum ?? 0n) + value;
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k) ?? {
      cost: null,
      input: null,
      output: null,
      write1h: null,
      unpriced: 0,
      unpricedPrompt: 0,
      longContext: 0,
    };
    const cost: RequestCost | null = priceRow(table, row);
    if (cost === null) {
      group.unpriced += 1;
      group.unpricedPrompt += row.prompt_tokens;
    } else {
      group.cost = add(group.cost, cost.totalPicoUsd);
      group.input = add(group.input, cost.inputPicoUsd);
      group.output = add(group.output, cost.outputPicoUsd);
      group.write1h = add(group.write1h, cost.cacheWrite1hPicoUsd);
      if (cost.longContext) group.longContext += 1;
    }
    groups.set(k, group);
  }
  return groups;
}

function pico(money: Money): bigint | null {
  return money === null ? null : money.picoUsd;
}

describe('SQL costs = TypeScript pricing reference', () => {
  it('per session and scenario, and per scenario, to the last pico-dollar', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 40 }), async (rows) => {
        await db.query('DELETE FROM requests');
        await db.insertRequests(rows);

        const expectedSessions = reference(rows, (row) => `${row.session_id}/${row.scenario}`);
        const sessions = await db.sessionCosts();
        expect(sessions.map((s) => `${s.sessionId}/${s.scenario}`).sort()).toEqual([...expectedSessions.keys()].sort());
        for (const s of sessions) {
          const expected = expectedSessions.get(`${s.sessionId}/${s.scenario}`);
          expect({
            cost: pico(s.cost),
            input: pico(s.inputCost),
            output: pico(s.outputCost),
            write1h: pico(s.cacheWrite1hCost),
            unpriced: s.unpricedRequests,
            unpricedPrompt: s.unpricedPromptTokens,
            longContext: s.longContextRequests,
          }).toEqual(expected);
        }

        const expectedScenarios = reference(rows, (row) => row.scenario);
        for (const s of await db.scenarioCosts()) {
          const expected = expectedScenarios.get(s.scenario);
          expect([pico(s.cost), s.unpricedRequests]).toEqual([expected?.cost, expected?.unpriced]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the same reports from a frozen request_costs (withFrozenCosts), which is let go afterwards', async () => {
    const reports = async () => ({
      sessionCosts: await db.sessionCosts(),
      sessionSavings: await db.sessionSavings(),
      scenarioCosts: await db.scenarioCosts(),
      scenarioSavings: await db.scenarioSavings(),
      fidelity: await db.fidelity(),
      unpricedModels: await db.unpricedModels(),
      compactionSummary: await db.compactionSummary(),
    });
    const count = async () => (await db.query('SELECT count(*) AS n FROM request_costs'))[0]?.['n'];
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 40 }), rowArb, async (rows, later) => {
        await db.query('DELETE FROM requests');
        await db.insertRequests(rows);
        const live = await reports();
        const frozen = await db.withFrozenCosts(async () => {
          await expect(db.insertRequests([later])).rejects.toThrow(/frozen/);
          return reports();
        });
        expect(frozen).toEqual(live);
        // The snapshot is gone: a request inserted now is priced by the view again.
        await db.insertRequests([later]);
        expect(await count()).toBe(BigInt(rows.length + 1));
      }),
      { numRuns: 40 },
    );
  });
});
