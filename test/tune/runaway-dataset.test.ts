/**
 * Tuning's acceptance on `datasets/freecode` (replay.md §10): on `runaway-4ba54e41` (MiniMax-M3, 1M-token window,
 * a context that grew to ~270K and never compacted) the recommended target is far below the
 * window, and the curve shows the trade-off: below the knee compactions re-write the cache, above
 * it every request re-reads an ever longer cached prefix.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { expandRange, sweepScenarios } from '../../src/tune/grid.js';
import { runTune } from '../../src/tune/run-tune.js';

// datasets/ is part of the repository: the session is always there, and its absence is a failure.
const ROLLOUTS = join(import.meta.dirname, '..', '..', 'datasets', 'freecode', 'rollout', 'sessions');
const RUNAWAY = readdirSync(ROLLOUTS).find((id) => id.startsWith('4ba54e41'));
const WINDOW_TOKENS = 1_000_000;

describe('tune on runaway-4ba54e41', () => {
  it('finds the runaway session in datasets/freecode', () => {
    expect(RUNAWAY).toBeDefined();
  });

  it('recommends a target far below the window, at the bottom of the cost valley', async () => {
    const scenarios = sweepScenarios({
      families: ['freecode', 'none'],
      targetTokens: expandRange(40_000, 400_000, 40_000),
      bufferTokens: null,
      preserveRecentTurns: null,
      ttls: null,
      fixed: {},
    });
    const { report } = await runTune({
      paths: [join(ROLLOUTS, RUNAWAY ?? '')],
      scenarios,
      prices: loadBundledPriceTable(),
      tolerancePct: 2,
      workers: 1,
    });
    const group = report.overall;
    expect(report.models.map((g) => g.model)).toEqual(['MiniMax-M3']);
    const r = group.recommendation;
    expect(r.kind).toBe('target');
    if (r.kind !== 'target') return;
    expect(r.point.targetTokens).toBeLessThanOrEqual(WINDOW_TOKENS / 4);
    expect(r.savingVsRecordedPct).toBeGreaterThan(50);
    const curve = group.curves[0];
    expect(curve?.knee?.side).toBe('below');
    const points = group.points.filter((p) => p.series !== null);
    const at = (target: number | undefined) => points.find((p) => p.scenario.params.targetTokens === target);
    const knee = at(curve?.knee?.targetTokens);
    const smallest = points[0];
    const largest = points.at(-1);
    if (knee === undefined || smallest === undefined || largest === undefined) throw new Error('curve points missing');
    // Above the knee: the quadratic term, cache reads of a longer and longer prefix.
    expect(largest.totals.cost.cacheReadPicoUsd).toBeGreaterThan(knee.totals.cost.cacheReadPicoUsd);
    expect(largest.costPicoUsd ?? 0n).toBeGreaterThan(knee.costPicoUsd ?? 0n);
    // Below it: compactions, each re-writing the cache, cost more than the reads they save.
    expect(smallest.totals.compactions).toBeGreaterThan(knee.totals.compactions);
    expect(smallest.totals.cost.cacheWritePicoUsd).toBeGreaterThan(knee.totals.cost.cacheWritePicoUsd);
    expect(smallest.costPicoUsd ?? 0n).toBeGreaterThan(knee.costPicoUsd ?? 0n);
  });
});
