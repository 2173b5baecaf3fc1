/**
 * Differential: `tune` prices in TypeScript (`priceRow`) what `simulate` prices in DuckDB SQL.
 * Over the same logs and scenarios, every scenario's cost must agree to the pico-dollar (compared
 * through the same USD conversion) and every count must agree exactly.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulateSessions } from '../../src/usecases/simulate.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { formatPicoUsd } from '../../src/cost/money.js';
import { sweepScenarios } from '../../src/tune/grid.js';
import { runTune } from '../../src/tune/run-tune.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');
const PATHS = ['home-newest', 'home-aug', 'compacted-head-lost'].map((dir) => join(FIXTURES, dir));

describe('tune against simulate', () => {
  it('costs and counts every scenario as the DuckDB reports do', async () => {
    const scenarios = sweepScenarios({
      families: ['freecode', 'window-only', 'none'],
      targetTokens: [6_000, 10_000, 30_000],
      bufferTokens: [1_000],
      preserveRecentTurns: null,
      ttls: ['1h'],
      fixed: {},
    });
    const [simulated, tuned] = await Promise.all([
      simulateSessions({ paths: PATHS, scenarios, pricingFile: null, dbPath: null, csvDir: null }),
      runTune({ paths: PATHS, scenarios, prices: loadBundledPriceTable(), tolerancePct: 2, workers: 1 }),
    ]);
    const expected = simulated.report.totals.results.map((r) => ({
      scenario: r.scenario,
      costUsd: r.costUsd,
      promptTokens: r.promptTokens,
      cacheReadTokens: r.cacheReadTokens,
      cacheWriteTokens: r.cacheWriteTokens,
      uncachedInputTokens: r.uncachedInputTokens,
      outputTokens: r.outputTokens,
      unpricedRequests: r.unpricedRequests,
      compactions: r.compactions,
      blockedCompactions: r.blockedCompactions,
      overflows: r.rejectedOverflows,
      failedTurns: r.failedTurns,
      summarizeRequests: r.summarizeRequests,
      peakContextTokens: r.peakContextTokens,
    }));
    const actual = tuned.report.overall.points.map((p) => ({
      scenario: p.scenario.name,
      costUsd: p.costPicoUsd === null ? null : formatPicoUsd(p.costPicoUsd),
      promptTokens: p.totals.promptTokens,
      cacheReadTokens: p.totals.cacheReadTokens,
      cacheWriteTokens: p.totals.cacheWrite5mTokens + p.totals.cacheWrite1hTokens,
      uncachedInputTokens: p.totals.uncachedInputTokens,
      outputTokens: p.totals.outputTokens,
      unpricedRequests: p.totals.unpricedRequests,
      compactions: p.totals.compactions,
      blockedCompactions: p.totals.blockedCompactions,
      overflows: p.totals.rejectedOverflows,
      failedTurns: p.totals.failedTurns,
      summarizeRequests: p.totals.summarizeRequests,
      peakContextTokens: p.totals.peakContextTokens,
    }));
    expect(actual).toEqual(expected);
    expect(actual.some((a) => a.compactions > 0 && a.scenario !== 'recorded')).toBe(true);
    expect(tuned.report.overall.sessionIds).toEqual(simulated.report.sessions.map((s) => s.sessionId));
  });
});
