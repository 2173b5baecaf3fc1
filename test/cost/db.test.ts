import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import { formatPicoUsd } from '../../src/cost/money.js';
import type { Money } from '../../src/cost/reports.js';
import type { CompactionRow, RequestRow, ScenarioRow, SessionRow } from '../../src/cost/rows.js';

const T0 = Date.parse('2026-08-04T10:00:00Z');

function request(over: Partial<RequestRow> & Pick<RequestRow, 'scenario' | 'request_index'>): RequestRow {
  const base = {
    session_id: 'sess-a',
    source: 'freecode',
    model: 'claude-sonnet-4-5',
    timestamp_ms: T0 + over.request_index * 60_000,
    kind: 'request' as const,
    cache_read_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    uncached_input_tokens: 0,
    output_tokens: 0,
    context_tokens_after: 0,
    compaction_before: false,
    overflow_retries: 0,
    modelled: true,
    ...over,
  };
  const prompt =
    base.cache_read_tokens + base.cache_write_5m_tokens + base.cache_write_1h_tokens + base.uncached_input_tokens;
  return {
    prompt_tokens: prompt,
    ...base,
    context_tokens_after: over.context_tokens_after ?? prompt + base.output_tokens,
  };
}

/**
 * sess-a (claude-sonnet-4-5, $3 in / $0.30 read / $3.75 5m / $15 out per MTok):
 * - measured: 10,000 written + 1,000 out ($0.0375 + $0.015); 9,000 read + 2,000 written + 1,000 out
 *   ($0.0027 + $0.0075 + $0.015)                                                  → $0.0525 + $0.0252 = $0.0777
 * - recorded: 10,000 written + 1,000 out; 8,000 read + 3,000 written + 1,000 out
 *   ($0.0024 + $0.01125 + $0.015)                                                 → $0.0525 + $0.02865 = $0.08115
 * - none:     the recorded rows plus a third request of 20,000 written + 1,000 out → $0.08115 + $0.09 = $0.17115
 * - freecode: a summarize request (4,000 written + 500 out = $0.0225), a rejected overflow (not billed),
 *             and one request of 2,000 read + 1,000 written + 1,000 out ($0.0006 + $0.00375 + $0.015 = $0.01935) → $0.04185
 * sess-b: an unknown model under `recorded` (unpriced), and 1,000 1h-written tokens under `none` (1,000 × $6 = $0.006).
 */
const REQUESTS: RequestRow[] = [
  request({ scenario: 'measured', request_index: 0, cache_write_5m_tokens: 10_000, output_tokens: 1_000 }),
  request({
    scenario: 'measured',
    request_index: 1,
    cache_read_tokens: 9_000,
    cache_write_5m_tokens: 2_000,
    output_tokens: 1_000,
  }),
  request({ scenario: 'recorded', request_index: 0, cache_write_5m_tokens: 10_000, output_tokens: 1_000 }),
  request({
    scenario: 'recorded',
    request_index: 1,
    cache_read_tokens: 8_000,
    cache_write_5m_tokens: 3_000,
    output_tokens: 1_000,
  }),
  request({ scenario: 'none', request_index: 0, cache_write_5m_tokens: 10_000, output_tokens: 1_000 }),
  request({
    scenario: 'none',
    request_index: 1,
    cache_read_tokens: 8_000,
    cache_write_5m_tokens: 3_000,
    output_tokens: 1_000,
  }),
  request({ scenario: 'none', request_index: 2, cache_write_5m_tokens: 20_000, output_tokens: 1_000 }),
  request({
    scenario: 'freecode',
    request_index: 1,
    kind: 'summarize',
    cache_write_5m_tokens: 4_000,
    output_tokens: 500,
  }),
  request({ scenario: 'freecode', request_index: 1, kind: 'rejected_overflow', prompt_tokens: 250_000 }),
  request({
    scenario: 'freecode',
    request_index: 1,
    cache_read_tokens: 2_000,
    cache_write_5m_tokens: 1_000,
    output_tokens: 1_000,
    compaction_before: true,
    overflow_retries: 1,
  }),
  request({
    session_id: 'sess-b',
    model: 'default',
    scenario: 'recorded',
    request_index: 0,
    uncached_input_tokens: 5_000,
    output_tokens: 100,
  }),
  request({
    session_id: 'sess-b',
    model: 'claude-sonnet-4-5',
    scenario: 'none',
    request_index: 0,
    cache_write_1h_tokens: 1_000,
  }),
];

const SCENARIOS: ScenarioRow[] = [
  { name: 'measured', family: 'measured', params_json: '{}' },
  { name: 'recorded', family: 'recorded', params_json: '{}' },
  { name: 'none', family: 'none', params_json: '{}' },
  { name: 'freecode', family: 'freecode', params_json: '{"targetTokens":120000}' },
];

const COMPACTIONS: CompactionRow[] = [
  {
    session_id: 'sess-a',
    scenario: 'freecode',
    request_index: 1,
    trigger: 'overflow',
    prompt_tokens_before: 250_000,
    prompt_tokens_after: 3_000,
    estimate_tokens_before: 20_000,
    estimate_tokens_after: 2_500,
    messages_before: 40,
    messages_after: 5,
    summary_tokens: 500,
    hook_blocked: false,
  },
  {
    session_id: 'sess-a',
    scenario: 'freecode',
    request_index: 0,
    trigger: 'threshold',
    prompt_tokens_before: 130_000,
    prompt_tokens_after: null,
    estimate_tokens_before: 15_000,
    estimate_tokens_after: null,
    messages_before: 30,
    messages_after: null,
    summary_tokens: null,
    hook_blocked: true,
  },
];

const SESSIONS: SessionRow[] = [
  {
    session_id: 'sess-a',
    source: 'freecode',
    models: ['claude-sonnet-4-5'],
    scenario: 'freecode',
    failed_turns: 1,
    fidelity_note: null,
    flags: ['runaway'],
  },
];

function usd(money: Money): string | null {
  return money === null ? null : formatPicoUsd(money.picoUsd);
}

let db: CostDb;

beforeAll(async () => {
  db = await CostDb.open({ prices: loadBundledPriceTable() });
  await db.insertScenarios(SCENARIOS);
  await db.insertRequests(REQUESTS);
  await db.insertCompactions(COMPACTIONS);
  await db.insertSessions(SESSIONS);
});

afterAll(() => db.close());

describe('cost database', () => {
  it('prices each session and scenario in SQL (hand-computed totals)', async () => {
    const costs = await db.sessionCosts();
    const byKey = new Map(costs.map((c) => [`${c.sessionId}/${c.scenario}`, c]));
    expect(usd(byKey.get('sess-a/measured')?.cost ?? null)).toBe('0.0777');
    expect(usd(byKey.get('sess-a/recorded')?.cost ?? null)).toBe('0.08115');
    expect(usd(byKey.get('sess-a/none')?.cost ?? null)).toBe('0.17115');
    expect(usd(byKey.get('sess-a/freecode')?.cost ?? null)).toBe('0.04185');
    expect(byKey.get('sess-a/freecode')).toMatchObject({
      requests: 1,
      summarizeRequests: 1,
      rejectedOverflows: 1,
      promptTokens: 7_000, // the rejected 250,000 are counted, not billed
      cacheReadTokens: 2_000,
      cacheWrite5mTokens: 5_000,
      outputTokens: 1_500,
      peakContextTokens: 4_000, // the request's 3,000 + 1,000; not the rejected prompt, not the summarizer call
      overflowRetries: 1,
      compactions: 1,
      blockedCompactions: 1,
      failedTurns: 1,
      flags: ['runaway'],
      unpricedRequests: 0,
    });
  });

  it('reports an unknown model as unpriced (NULL cost, counted tokens), never $0', async () => {
    const costs = await db.sessionCosts();
    const unpriced = costs.find((c) => c.sessionId === 'sess-b' && c.scenario === 'recorded');
    expect(unpriced).toMatchObject({
      cost: null,
      unpricedRequests: 1,
      unpricedPromptTokens: 5_000,
      unpricedOutputTokens: 100,
    });
    expect(await db.unpricedModels()).toEqual([
      { model: 'default', reason: 'unknown model', requests: 1, promptTokens: 5_000, outputTokens: 100 },
    ]);
    const oneHour = costs.find((c) => c.sessionId === 'sess-b' && c.scenario === 'none');
    expect(usd(oneHour?.cacheWrite1hCost ?? null)).toBe('0.006');
  });

  it('totals per scenario, with the scenario family', async () => {
    const scenarios = await db.scenarioCosts();
    const none = scenarios.find((s) => s.scenario === 'none');
    expect(none).toMatchObject({ family: 'none', sessions: 2, requests: 4 });
    expect(usd(none?.cost ?? null)).toBe('0.17715');
    const recorded = scenarios.find((s) => s.scenario === 'recorded');
    expect(recorded).toMatchObject({ unpricedRequests: 1 });
    expect(usd(recorded?.cost ?? null)).toBe('0.08115');
  });

  it('computes savings against recorded and against none', async () => {
    const savings = await db.sessionSavings();
    const freecode = savings.find((s) => s.sessionId === 'sess-a' && s.scenario === 'freecode');
    // 0.08115 − 0.04185 and 0.17115 − 0.04185
    expect(usd(freecode?.vsRecorded.cost ?? null)).toBe('0.0393');
    expect(usd(freecode?.vsNone.cost ?? null)).toBe('0.1293');
    expect(usd(freecode?.measuredCost ?? null)).toBe('0.0777');
    expect(freecode?.vsRecorded.promptTokens).toBe(21_000 - 7_000);
    expect(freecode?.vsRecorded.pct).toBeCloseTo((100 * 0.0393) / 0.08115, 9);
    const unpricedSide = savings.find((s) => s.sessionId === 'sess-b' && s.scenario === 'none');
    expect(unpricedSide?.vsRecorded.cost).toBeNull();
    const totals = await db.scenarioSavings();
    // all sessions under none (0.17715) − freecode (0.04185)
    expect(usd(totals.find((s) => s.scenario === 'freecode')?.vsNone.cost ?? null)).toBe('0.1353');
  });

  it('summarizes compactions by trigger, with provider and estimate counts', async () => {
    expect(await db.compactionSummary()).toEqual([
      {
        sessionId: 'sess-a',
        scenario: 'freecode',
        compactions: 1,
        thresholdCompactions: 0,
        overflowCompactions: 1,
        manualCompactions: 0,
        recordedCompactions: 0,
        blockedCompactions: 1,
        promptTokensRemoved: 247_000,
        estimateTokensRemoved: 17_500,
        summaryTokens: 500,
        maxPromptTokensBefore: 250_000,
      },
    ]);
  });

  it('measures the fidelity of `recorded` against `measured`, request by request', async () => {
    const [fidelity] = await db.fidelity();
    expect(fidelity).toMatchObject({
      sessionId: 'sess-a',
      matchedRequests: 2,
      measuredPromptTokens: 21_000,
      recordedPromptTokens: 21_000,
      promptTokensErrorPct: 0,
    });
    expect(usd(fidelity?.measuredCost ?? null)).toBe('0.0777');
    expect(fidelity?.costErrorPct).toBeCloseTo((100 * (0.08115 - 0.0777)) / 0.0777, 9);
    // Per request: read error 0 and 1,000/11,000; the median of two values is their mean.
    expect(fidelity?.medianCacheReadErrorPct).toBeCloseTo((100 * 1000) / 11_000 / 2, 9);
  });

  it('exports CSV rows with stable columns, exact USD strings and joined lists', async () => {
    const requests = await db.exportCsv('requests');
    expect(requests.columns.slice(0, 16)).toEqual([
      'session_id',
      'source',
      'model',
      'scenario',
      'request_index',
      'timestamp_ms',
      'kind',
      'prompt_tokens',
      'cache_read_tokens',
      'cache_write_5m_tokens',
      'cache_write_1h_tokens',
      'uncached_input_tokens',
      'output_tokens',
      'context_tokens_after',
      'compaction_before',
      'overflow_retries',
    ]);
    expect(requests.rows).toHaveLength(REQUESTS.length);
    const freecode = requests.rows.filter((row) => row['session_id'] === 'sess-a' && row['scenario'] === 'freecode');
    // Insertion order within one request index: summarize, rejected overflow, request.
    expect(freecode.map((row) => [row['kind'], row['cost_usd']])).toEqual([
      ['summarize', '0.0225'],
      ['rejected_overflow', '0'],
      ['request', '0.01935'],
    ]);
    const unpriced = requests.rows.find((row) => row['model'] === 'default');
    expect(unpriced).toMatchObject({ unpriced: true, cost_usd: null, price_id: null });

    const sessions = await db.exportCsv('sessions');
    const row = sessions.rows.find((r) => r['session_id'] === 'sess-a' && r['scenario'] === 'freecode');
    expect(row).toMatchObject({
      models: 'claude-sonnet-4-5',
      flags: 'runaway',
      cost_usd: '0.04185',
      saving_vs_recorded_usd: '0.0393',
      failed_turns: 1,
    });
    const recorded = sessions.rows.find((r) => r['session_id'] === 'sess-a' && r['scenario'] === 'recorded');
    expect(recorded).toMatchObject({ fidelity_matched_requests: 2 });

    const scenarios = await db.exportCsv('scenarios');
    expect(scenarios.rows.map((r) => r['scenario'])).toEqual(['freecode', 'measured', 'none', 'recorded']);
    expect(scenarios.rows.find((r) => r['scenario'] === 'freecode')).toMatchObject({
      params_json: '{"targetTokens":120000}',
      cost_usd: '0.04185',
    });

    const compactions = await db.exportCsv('compactions');
    expect(compactions.rows.map((r) => [r['request_index'], r['trigger'], r['prompt_tokens_after']])).toEqual([
      [0, 'threshold', null],
      [1, 'overflow', 3_000],
    ]);
  });

  it('rejects a billed row whose classes do not add up to its prompt (a replay bug)', async () => {
    const broken = { ...request({ scenario: 'bug', request_index: 0, cache_write_5m_tokens: 10 }), prompt_tokens: 11 };
    await expect(db.insertRequests([broken])).rejects.toThrow(/CHECK/);
  });

  it('stores every whole number exactly, on both sides of the 32-bit range (appendWhole)', async () => {
    // Deliberate bug caught: the 32-bit bound written as 2 ** 32 (the appender wraps such values).
    const whole = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 31 + 2 }),
      fc.integer({ min: -2, max: 2 }).map((d) => 2 ** 31 - 1 + d),
      fc.integer({ min: -2, max: 2 }).map((d) => 2 ** 32 + d),
      fc.maxSafeInteger().map((n) => Math.abs(n)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(whole, { minLength: 7, maxLength: 7 }), whole, async (classes, at) => {
        const [read = 0, write5m = 0, write1h = 0, uncached = 0, output = 0, context = 0, extra = 0] = classes;
        const fits = read + write5m + write1h + uncached <= Number.MAX_SAFE_INTEGER;
        fc.pre(fits);
        const row = request({
          scenario: 'whole',
          request_index: extra % 1000,
          timestamp_ms: at,
          cache_read_tokens: read,
          cache_write_5m_tokens: write5m,
          cache_write_1h_tokens: write1h,
          uncached_input_tokens: uncached,
          output_tokens: output,
          context_tokens_after: context,
        });
        await db.query("DELETE FROM requests WHERE scenario = 'whole'");
        await db.insertRequests([row]);
        const [stored] = await db.query(
          "SELECT timestamp_ms, prompt_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, uncached_input_tokens, output_tokens, context_tokens_after FROM requests WHERE scenario = 'whole'",
        );
        expect(stored).toEqual({
          timestamp_ms: BigInt(at),
          prompt_tokens: BigInt(row.prompt_tokens),
          cache_read_tokens: BigInt(read),
          cache_write_5m_tokens: BigInt(write5m),
          cache_write_1h_tokens: BigInt(write1h),
          uncached_input_tokens: BigInt(uncached),
          output_tokens: BigInt(output),
          context_tokens_after: BigInt(context),
        });
      }),
      { numRuns: 60 },
    );
    await db.query("DELETE FROM requests WHERE scenario = 'whole'");
  });
});
