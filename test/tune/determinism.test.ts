/**
 * Determinism (STYLE.md habit 1: same input, same output bytes): the same logs give the same bytes, whether sessions are swept in this
 * thread or spread over two worker threads, and run after run.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { tuneChartSpec } from '../../src/report/tune-chart.js';
import { tuneCsvChunks } from '../../src/report/tune-csv.js';
import { tuneReportJson } from '../../src/report/tune-json.js';
import { renderTuneReport } from '../../src/report/tune-table.js';
import { discoverSessions } from '../../src/ingest/index.js';
import { sweepScenarios } from '../../src/tune/grid.js';
import { runSweeps } from '../../src/tune/sweep-pool.js';
import type { TuneOutcome } from '../../src/tune/run-tune.js';
import { runTune } from '../../src/tune/run-tune.js';
import { SOURCE_WORKER_SCRIPT } from './support/worker-script.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');
const PATHS = ['home-newest', 'home-aug', 'old-store', 'rollout-only', 'compacted-head-lost'].map((dir) =>
  join(FIXTURES, dir),
);

const scenarios = sweepScenarios({
  families: ['freecode', 'window-only', 'none'],
  targetTokens: [8_000, 16_000, 40_000],
  bufferTokens: null,
  preserveRecentTurns: null,
  ttls: ['5m', '1h'],
  fixed: {},
});

function bytes(outcome: TuneOutcome): string {
  const { report } = outcome;
  return [
    JSON.stringify(tuneReportJson(report), null, 2),
    [...tuneCsvChunks(report)].join(''),
    renderTuneReport(report),
    JSON.stringify(tuneChartSpec(report.overall, 'chart')),
  ].join('\n---\n');
}

async function tune(workers: number): Promise<TuneOutcome> {
  return runTune({
    paths: PATHS,
    scenarios,
    prices: loadBundledPriceTable(),
    tolerancePct: 2,
    workers,
    workerScript: SOURCE_WORKER_SCRIPT,
  });
}

describe('tune determinism', () => {
  it('gives the same bytes with one worker and with two, and on a second run', async () => {
    const inThread = await tune(1);
    const twoThreads = await tune(2);
    const again = await tune(1);
    expect(inThread.report.overall.sessionIds.length).toBeGreaterThan(1);
    expect(bytes(twoThreads)).toBe(bytes(inThread));
    expect(bytes(again)).toBe(bytes(inThread));
    expect(twoThreads.stats).toEqual(inThread.stats);
  });

  // Checked against a deliberate bug: results stored in the order threads finish them.
  it('puts results back in discovery order even when threads finish out of order', async () => {
    const { sources } = await discoverSessions(PATHS);
    const config = { scenarios, prices: loadBundledPriceTable(), reuseEquivalent: true };
    // Weights that hand the last sessions out first, so completion order is not discovery order.
    const backwards = await runSweeps(sources, config, {
      workers: 2,
      weights: sources.map((_, i) => i),
      workerScript: SOURCE_WORKER_SCRIPT,
    });
    const inThread = await runSweeps(sources, config, { workers: 1 });
    expect(backwards.map((r) => r.sweep.sessionId)).toEqual(sources.map((s) => s.sessionId));
    expect(backwards).toEqual(inThread);
  });
});
