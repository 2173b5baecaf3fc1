import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { priceRow } from '../../src/cost/price-request.js';
import type { ReplayCompaction } from '../../src/simulate/replay.js';
import type { ScenarioTotals, TotalsRow } from '../../src/tune/scenario-totals.js';
import {
  EMPTY_TOTALS,
  addTotals,
  costPicoUsdOrNull,
  sessionTotals,
  totalPicoUsd,
} from '../../src/tune/scenario-totals.js';

const prices = loadBundledPriceTable();
const AT = Date.UTC(2026, 9, 1);

function row(overrides: Partial<TotalsRow>): TotalsRow {
  return {
    kind: 'request',
    model: 'claude-sonnet-4-5',
    timestampMs: AT,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    uncachedInputTokens: 0,
    outputTokens: 0,
    contextTokensAfter: 0,
    compactionBefore: false,
    ...overrides,
  };
}

function compaction(overrides: Partial<ReplayCompaction>): ReplayCompaction {
  return {
    rowIndex: 0,
    requestIndex: 0,
    trigger: 'threshold',
    promptTokensBefore: 0,
    promptTokensAfter: 0,
    estimateTokensBefore: 0,
    estimateTokensAfter: 0,
    messagesBefore: 0,
    messagesAfter: 0,
    summaryTokens: 0,
    hookBlocked: false,
    compacted: true,
    ...overrides,
  };
}

describe('scenario totals', () => {
  it('prices requests by class exactly, the summarizer apart, rejected sends not at all (replay.md §11 request 2)', () => {
    const unpriced = new Set<string>();
    const totals = sessionTotals(
      prices,
      [
        // §11's Anthropic request 2: read 2,500, write 1,500, output 200 → $0.009375.
        row({
          promptTokens: 4_000,
          cacheReadTokens: 2_500,
          cacheWrite5mTokens: 1_500,
          outputTokens: 200,
          contextTokensAfter: 4_200,
        }),
        row({ kind: 'rejected_overflow', promptTokens: 250_000, contextTokensAfter: 250_000 }),
        row({
          kind: 'summarize',
          promptTokens: 1_000,
          uncachedInputTokens: 1_000,
          outputTokens: 100,
          contextTokensAfter: 1_100,
        }),
        row({
          model: 'no-such-model',
          promptTokens: 10,
          uncachedInputTokens: 10,
          outputTokens: 1,
          contextTokensAfter: 11,
          compactionBefore: true,
        }),
      ],
      [
        compaction({ promptTokensBefore: 9_000, promptTokensAfter: 3_000 }),
        compaction({ hookBlocked: true, compacted: false }),
        compaction({ compacted: false }),
      ],
      1,
      unpriced,
    );
    expect(totals.cost).toEqual({
      cacheReadPicoUsd: 750_000_000n,
      cacheWritePicoUsd: 5_625_000_000n,
      uncachedInputPicoUsd: 0n,
      outputPicoUsd: 3_000_000_000n,
      // $3/MTok × 1,000 + $15/MTok × 100.
      summarizerPicoUsd: 4_500_000_000n,
    });
    expect(totalPicoUsd(totals.cost)).toBe(13_875_000_000n);
    expect(totals).toMatchObject({
      requests: 2,
      summarizeRequests: 1,
      rejectedOverflows: 1,
      failedTurns: 1,
      promptTokens: 5_010,
      peakContextTokens: 4_200,
      compactions: 1,
      blockedCompactions: 1,
      summarizedAwayTokens: 6_000,
      requestsAfterCompaction: 1,
      pricedRequests: 2,
      unpricedRequests: 1,
    });
    expect([...unpriced]).toEqual(['no-such-model']);
    expect(
      costPicoUsdOrNull(
        sessionTotals(prices, [row({ model: 'no-such-model', promptTokens: 1, uncachedInputTokens: 1 })], [], 0),
      ),
    ).toBeNull();
    expect(costPicoUsdOrNull(EMPTY_TOTALS)).toBe(0n);
  });

  // Differential: the totals' cost is the sum of the pricing reference over the rows. Checked
  // against a deliberate bug: 1h writes left out of `cacheWritePicoUsd`.
  it('costs what priceRow sums to, row by row, and adds up associatively', () => {
    const arbRow = fc.record({
      kind: fc.constantFrom('request' as const, 'summarize' as const, 'rejected_overflow' as const),
      model: fc.constantFrom('claude-sonnet-4-5', 'gpt-5', 'MiniMax-M3', 'deepseek-chat'),
      read: fc.integer({ min: 0, max: 300_000 }),
      w5: fc.integer({ min: 0, max: 50_000 }),
      w1: fc.integer({ min: 0, max: 50_000 }),
      uncached: fc.integer({ min: 0, max: 50_000 }),
      out: fc.integer({ min: 0, max: 8_000 }),
    });
    fc.assert(
      fc.property(fc.array(arbRow, { maxLength: 20 }), fc.integer({ min: 0, max: 20 }), (specs, cut) => {
        const rows = specs.map((s) =>
          row({
            kind: s.kind,
            model: s.model,
            promptTokens: s.read + s.w5 + s.w1 + s.uncached,
            cacheReadTokens: s.read,
            cacheWrite5mTokens: s.w5,
            cacheWrite1hTokens: s.w1,
            uncachedInputTokens: s.uncached,
            outputTokens: s.out,
          }),
        );
        let expected = 0n;
        let unpriced = 0;
        for (const r of rows) {
          const cost = priceRow(prices, {
            kind: r.kind,
            model: r.model,
            timestamp_ms: r.timestampMs,
            prompt_tokens: r.promptTokens,
            cache_read_tokens: r.cacheReadTokens,
            cache_write_5m_tokens: r.cacheWrite5mTokens,
            cache_write_1h_tokens: r.cacheWrite1hTokens,
            uncached_input_tokens: r.uncachedInputTokens,
            output_tokens: r.outputTokens,
          });
          if (cost === null) unpriced += 1;
          else expected += cost.totalPicoUsd;
        }
        const whole = sessionTotals(prices, rows, [], 0);
        expect(totalPicoUsd(whole.cost)).toBe(expected);
        expect(whole.unpricedRequests).toBe(unpriced);
        const parts: ScenarioTotals = addTotals(
          sessionTotals(prices, rows.slice(0, cut), [], 0),
          sessionTotals(prices, rows.slice(cut), [], 0),
        );
        expect({ ...parts, sessions: 1 }).toEqual(whole);
        expect(addTotals(EMPTY_TOTALS, whole)).toEqual(whole);
      }),
    );
  });
});
