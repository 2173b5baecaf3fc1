/**
 * Differential test: `SummaryAggregator` (the `simulate` summary folded in TypeScript) gives
 * exactly what the SQL views give (`session_costs`, `session_savings`, `scenario_costs`,
 * `scenario_savings`, `fidelity`, `unpriced_models`, read as `simulate` reads them) over the same
 * rows loaded into `CostDb`: several sessions (names ordered by code point, not UTF-16), the
 * `measured`/`recorded`/`none` baselines and other scenarios (one not registered), priced,
 * unpriced and windowed models, requests without a time, prompts on the long-context thresholds,
 * token counts whose costs pass 2^53 and 2^64 pico-dollars, rejected overflows, modelled flags,
 * blocked compactions, session rows with flags, failed turns and notes, and sessions without one.
 * Beside it, its two numeric pieces against DuckDB itself: the HUGEINT → DOUBLE cast of the
 * percentages and the continuous median of the fidelity.
 *
 * Checked against deliberate bugs (each made this file fail): the median interpolated as
 * `lo + (hi - lo) * d` (the median property at once, the summary property within 20 runs);
 * `Number(bigint)` for DuckDB's HUGEINT cast in the percentages (the summary property, within 10 runs);
 * a rejected overflow's cost left NULL instead of 0; unpriced prompt tokens not summed; the
 * fidelity pairing rows not flagged `modelled`; the fidelity's costs summed when only the measured
 * side is priced; sessions or models in UTF-16 order (`sort()`) instead of code point order.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import type { CompactionRow, RequestKind, RequestRow, ScenarioRow, SessionRow } from '../../src/cost/rows.js';
import {
  continuousMedian,
  duckHugeintToDouble,
  type SimulateSummary,
  SummaryAggregator,
} from '../../src/cost/summary-aggregate.js';
import { windowedArb } from './price-arbitraries.js';

const table = loadBundledPriceTable();
let db: CostDb;

beforeAll(async () => {
  db = await CostDb.open({ prices: table, threads: 1 });
});
afterAll(() => db.close());

/** Session ids: 'ｚ' (U+FF5A) sorts after '𝔘' (U+1D518) in UTF-16 but before it by code point. */
const SESSIONS = ['s1', 's2', 'S3', 'é', 'ｚ', '𝔘'];
const SCENARIOS = ['measured', 'recorded', 'none', 'freecode', 'freecode-t120k', 'unregistered'];
const REGISTERED: readonly ScenarioRow[] = [
  { name: 'measured', family: 'measured', params_json: '{}' },
  { name: 'recorded', family: 'recorded', params_json: '{}' },
  { name: 'none', family: 'none', params_json: '{}' },
  { name: 'freecode', family: 'freecode', params_json: '{}' },
  { name: 'freecode-t120k', family: 'freecode', params_json: '{"target":120000}' },
];

const MODELS = [
  'claude-sonnet-4-5',
  'anthropic/claude-sonnet-4-5',
  'claude-sonnet-4-20250514',
  'claude-sonnet-5',
  'claude-opus-4-6',
  'gpt-5',
  'gpt-4',
  'deepseek-chat',
  'gemini-2.5-pro',
  'default',
  // Unknown models whose order differs by code point ('ｍ' U+FF4D first) and by UTF-16 ('𝔪' U+1D52A first).
  'ｍodel-ü',
  '𝔪odel',
];

const timestampArb = fc.oneof(
  fc.constant(null),
  fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
);
const THRESHOLDS = [200_000, 272_000];
const promptArb = fc.oneof(
  fc.tuple(fc.constantFrom(...THRESHOLDS), fc.integer({ min: -1, max: 1 })).map(([t, d]) => t + d),
  fc.integer({ min: 0, max: 400_000 }),
  fc.integer({ min: 0, max: 50 }),
  // Costs past 2^53 and 2^64 pico-dollars; sums of 60 such prompts stay safe integers.
  fc.integer({ min: 2 ** 40, max: 2 ** 46 }),
);
const fractionArb = fc.oneof(fc.constant(0), fc.constant(1000), fc.integer({ min: 0, max: 1000 }));

const requestArb = fc
  .record({
    session: fc.constantFrom(...SESSIONS),
    scenario: fc.constantFrom(...SCENARIOS, 'measured', 'recorded'),
    index: fc.integer({ min: 0, max: 6 }),
    modelAt: fc.oneof(fc.record({ model: fc.constantFrom(...MODELS), timestampMs: timestampArb }), windowedArb),
    kind: fc.constantFrom<RequestKind>('request', 'request', 'request', 'summarize', 'rejected_overflow'),
    prompt: promptArb,
    fractions: fc.tuple(fractionArb, fractionArb, fractionArb),
    output: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 64_000 })),
    context: fc.integer({ min: 0, max: 500_000 }),
    compactionBefore: fc.boolean(),
    retries: fc.constantFrom(0, 0, 1, 3),
    modelled: fc.boolean(),
  })
  .map((r): RequestRow => {
    const { model, timestampMs } = r.modelAt;
    const [f1, f2, f3] = r.fractions;
    const billed = r.kind !== 'rejected_overflow';
    const read = billed ? Math.floor((r.prompt * f1) / 1000) : 0;
    const write5m = billed ? Math.floor(((r.prompt - read) * f2) / 1000) : 0;
    const write1h = billed ? Math.floor(((r.prompt - read - write5m) * f3) / 1000) : 0;
    return {
      session_id: r.session,
      // any_value(source): one source per session, as the replay writes it.
      source: `src-${r.session}`,
      model,
      scenario: r.scenario,
      request_index: r.index,
      timestamp_ms: timestampMs,
      kind: r.kind,
      prompt_tokens: r.prompt,
      cache_read_tokens: read,
      cache_write_5m_tokens: write5m,
      cache_write_1h_tokens: write1h,
      uncached_input_tokens: billed ? r.prompt - read - write5m - write1h : 0,
      output_tokens: billed ? r.output : 0,
      context_tokens_after: r.context,
      compaction_before: r.compactionBefore,
      overflow_retries: r.retries,
      modelled: r.modelled,
    };
  });

/** A `measured` request and its `recorded` replay (same session and index): the fidelity's pairs. */
const billedArb = requestArb.filter((row) => row.kind === 'request');
const pairArb = fc.tuple(billedArb, billedArb).map(([measured, recorded]): RequestRow[] => [
  { ...measured, scenario: 'measured' },
  {
    ...recorded,
    session_id: measured.session_id,
    source: measured.source,
    request_index: measured.request_index,
    scenario: 'recorded',
  },
]);

const compactionArb = fc
  .record({
    session: fc.constantFrom(...SESSIONS),
    scenario: fc.constantFrom(...SCENARIOS),
    blocked: fc.boolean(),
    trigger: fc.constantFrom<CompactionRow['trigger']>('threshold', 'overflow', 'manual', 'recorded'),
  })
  .map((c): CompactionRow => ({
    session_id: c.session,
    scenario: c.scenario,
    request_index: 1,
    trigger: c.trigger,
    prompt_tokens_before: 1000,
    prompt_tokens_after: c.blocked ? null : 100,
    estimate_tokens_before: 900,
    estimate_tokens_after: c.blocked ? null : 90,
    messages_before: 10,
    messages_after: c.blocked ? null : 2,
    summary_tokens: c.blocked ? null : 50,
    hook_blocked: c.blocked,
  }));

/** At most one session row per session and scenario, as the replay writes them. */
const sessionRowsArb = fc.uniqueArray(
  fc.record({
    session: fc.constantFrom(...SESSIONS),
    scenario: fc.constantFrom(...SCENARIOS),
    failed: fc.constantFrom(0, 0, 2),
    note: fc.option(fc.constantFrom('no measured usage in the log', 'chars-per-token ratio not fitted (default 4)')),
    flags: fc.array(fc.constantFrom('cache-miss', 'overflow', 'ｚ-flag'), { maxLength: 2 }),
  }),
  { selector: (s) => `${s.session}\u0000${s.scenario}`, maxLength: 12 },
);

function sessionRowOf(s: {
  session: string;
  scenario: string;
  failed: number;
  note: string | null;
  flags: string[];
}): SessionRow {
  return {
    session_id: s.session,
    source: `src-${s.session}`,
    models: ['m'],
    scenario: s.scenario,
    failed_turns: s.failed,
    fidelity_note: s.note,
    flags: s.flags,
  };
}

async function sqlSummary(): Promise<SimulateSummary> {
  return db.simulateSummary();
}

describe('SummaryAggregator = the SQL views simulate reads', () => {
  it('gives the same summary as DuckDB from the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestArb, { minLength: 1, maxLength: 40 }),
        fc.array(pairArb, { maxLength: 12 }),
        fc.array(compactionArb, { maxLength: 8 }),
        sessionRowsArb,
        fc.integer({ min: 1, max: 3 }),
        async (singles, pairs, compactions, sessionSpecs, chunks) => {
          const requests = [...singles, ...pairs.flat()];
          const sessions = sessionSpecs.map(sessionRowOf);
          for (const name of ['requests', 'compactions', 'sessions', 'scenarios'])
            await db.query(`DELETE FROM ${name}`);
          await db.insertScenarios(REGISTERED);
          await db.insertRequests(requests);
          if (compactions.length > 0) await db.insertCompactions(compactions);
          if (sessions.length > 0) await db.insertSessions(sessions);
          const sql = await sqlSummary();

          // Rows arrive in chunks (one per replayed session in `simulate`), in any order of kinds.
          const fold = new SummaryAggregator(table, REGISTERED);
          const size = Math.ceil(requests.length / chunks);
          fold.addSessions(sessions);
          for (let i = 0; i < requests.length; i += size) fold.addRequests(requests.slice(i, i + size));
          fold.addCompactions(compactions);
          expect(fold.summary()).toEqual(sql);
        },
      ),
      // Shrinking a failure goes through DuckDB at every step: bounded, so a failure is reported
      // (with its seed and the smallest case found so far) well inside the test timeout.
      { numRuns: 50, interruptAfterTimeLimit: 25_000 },
    );
  });

  it('agrees on a hand-written case: unpriced is NULL, a rejected overflow costs 0, models by code point, no pair no fidelity', async () => {
    const base: RequestRow = {
      session_id: 'a',
      source: 'freecode',
      model: 'unknown-model',
      scenario: 'recorded',
      request_index: 0,
      timestamp_ms: null,
      kind: 'request',
      prompt_tokens: 10,
      cache_read_tokens: 0,
      cache_write_5m_tokens: 0,
      cache_write_1h_tokens: 0,
      uncached_input_tokens: 10,
      output_tokens: 5,
      context_tokens_after: 15,
      compaction_before: false,
      overflow_retries: 0,
      modelled: true,
    };
    const rows: RequestRow[] = [
      base,
      { ...base, session_id: 'b', model: 'claude-sonnet-4-5', kind: 'rejected_overflow', uncached_input_tokens: 0 },
      { ...base, session_id: 'c', model: '𝔪odel' },
      { ...base, session_id: 'c', model: 'ｍodel-ü' },
    ];
    for (const name of ['requests', 'compactions', 'sessions', 'scenarios']) await db.query(`DELETE FROM ${name}`);
    await db.insertRequests(rows);
    const fold = new SummaryAggregator(table, []);
    fold.addRequests(rows);
    const summary = fold.summary();
    expect(summary).toEqual(await sqlSummary());
    expect(summary.sessionCosts.map((s) => [s.sessionId, s.cost, s.promptTokens, s.rejectedOverflows])).toEqual([
      ['a', null, 10, 0],
      ['b', { picoUsd: 0n, usd: 0 }, 0, 1],
      ['c', null, 20, 0],
    ]);
    // Code point order (DuckDB's binary collation), not UTF-16's.
    expect(summary.sessionCosts[2]?.models).toEqual(['ｍodel-ü', '𝔪odel']);
    expect(summary.fidelity).toEqual([]);
    expect(summary.unpricedModels.map((u) => [u.model, u.reason, u.requests, u.promptTokens, u.outputTokens])).toEqual([
      ['unknown-model', 'unknown model', 1, 10, 5],
      ['ｍodel-ü', 'unknown model', 1, 10, 5],
      ['𝔪odel', 'unknown model', 1, 10, 5],
    ]);
  });
});

describe('the numbers DuckDB computes the percentages and medians with', () => {
  const huge = fc.oneof(
    fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
    fc.bigInt({ min: -(2n ** 66n), max: 2n ** 66n }),
    fc.bigInt({ min: -(2n ** 55n), max: 2n ** 55n }),
    fc
      .tuple(fc.constantFrom(2n ** 53n, 2n ** 64n, -(2n ** 53n), -(2n ** 64n)), fc.bigInt({ min: -3n, max: 3n }))
      .map(([a, b]) => a + b),
  );

  it('HUGEINT → DOUBLE is cast as DuckDB casts it (not always the nearest double past 2^53)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(huge, { minLength: 1, maxLength: 200 }), async (values) => {
        const rows = await db.query(
          `SELECT i, v::DOUBLE AS d FROM (VALUES ${values.map((v, i) => `(${i}, ${v}::HUGEINT)`).join(', ')}) t(i, v) ORDER BY i`,
        );
        expect(values.map(duckHugeintToDouble)).toEqual(rows.map((row) => row['d']));
      }),
      { numRuns: 30 },
    );
  });

  it('median is DuckDB continuous median, with even counts and equal values', async () => {
    const value = fc.oneof(
      fc.double({ min: 0, max: 1000, noNaN: true }),
      fc.constantFrom(0, 1, 12.5, 100),
      fc
        .tuple(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 1, max: 10 ** 6 }))
        .map(([a, b]) => (100 * a) / b),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(value, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 40 }),
        async (groups) => {
          const tuples = groups.flatMap((g, i) => g.map((v) => `(${i}, ${v.toExponential(17)}::DOUBLE)`));
          const rows = await db.query(
            `SELECT g, median(v) AS m FROM (VALUES ${tuples.join(', ')}) t(g, v) GROUP BY g ORDER BY g`,
          );
          expect(groups.map((g) => continuousMedian(Float64Array.from(g)))).toEqual(rows.map((row) => row['m']));
        },
      ),
      { numRuns: 40 },
    );
  });
});
