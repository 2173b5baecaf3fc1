#!/usr/bin/env node
// The tune part of `npm run bench` (replay.md §10): a 100-scenario sweep against one `simulate` over the
// same logs, in the same process, reported as a ratio (goal ≤ 3×) with requests replayed per
// second. `bench/run.mjs` imports `runTuneBench`; alone: `node bench/tune-bench.mjs [paths..]`
// after `npm run build` (default path: datasets/freecode).
//
// The sweep: targets 20K…500K in 20K steps × TTL 5m, 1h × buffer 8K, 13K = 100 points on four
// curves, plus `recorded` and `none` (×2 TTL) as references. `simulate`: its default scenarios
// (`recorded`, `freecode@120000`, `none`), priced in DuckDB. Both fit the recorded policy once per
// session; the sweep then replays each scenario (less the ones it can prove identical to a replay
// already made) on as many threads as `cachecost tune` uses by default (`defaultSweepWorkers`).
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { simulateSessions as runSimulation } from '../dist/index.js';
import { loadBundledPriceTable } from '../dist/cost/index.js';
import { buildScenarios } from '../dist/simulate/scenario.js';
import { expandRange, sweepScenarios } from '../dist/tune/grid.js';
import { runTune } from '../dist/tune/run-tune.js';
import { defaultSweepWorkers } from '../dist/tune/limits.js';

/** The benchmark's grid: 25 targets × 2 TTLs × 2 buffers = 100 curve points. */
export const BENCH_GRID = {
  families: ['freecode', 'none'],
  targetTokens: expandRange(20_000, 500_000, 20_000),
  bufferTokens: [8_000, 13_000],
  preserveRecentTurns: null,
  ttls: ['5m', '1h'],
  fixed: {},
};

function defaultLog(label, value) {
  console.log(`${label.padEnd(34)} ${value}`);
}

/**
 * Runs one simulate and one 100-scenario sweep over `paths`; prints and returns the figures.
 * Timings are wall-clock in this process; only their ratio is meant to be compared across machines.
 */
export async function runTuneBench({ paths, log = defaultLog, workers = defaultSweepWorkers(availableParallelism()) }) {
  const sweep = sweepScenarios(BENCH_GRID);
  const curvePoints = sweep.filter((s) => s.family === 'freecode').length;

  let t = performance.now();
  const simulated = await runSimulation({
    paths,
    scenarios: buildScenarios(['freecode', 'none'], { targetTokens: [120_000] }),
    pricingFile: null,
    dbPath: null,
    csvDir: null,
  });
  const simulateMs = performance.now() - t;

  t = performance.now();
  const tuned = await runTune({ paths, scenarios: sweep, prices: loadBundledPriceTable(), tolerancePct: 2, workers });
  const tuneMs = performance.now() - t;

  const requests = tuned.report.overall.points[0]?.totals.requests ?? 0;
  const { replays, reused, replayedRows, sessions } = tuned.stats;
  const figures = {
    sessions,
    requests,
    curvePoints,
    scenarios: sweep.length,
    workers,
    simulateSeconds: simulateMs / 1000,
    tuneSeconds: tuneMs / 1000,
    ratio: tuneMs / simulateMs,
    replays,
    reused,
    replayedRows,
    requestsReplayedPerSecond: replayedRows / (tuneMs / 1000),
    scenarioRequestsPerSecond: (requests * sweep.length) / (tuneMs / 1000),
  };
  log(
    'simulate (3 scenarios + DuckDB)',
    `${figures.simulateSeconds.toFixed(2)} s, ${simulated.report.sessions.length} sessions`,
  );
  log(
    `tune (${curvePoints}-point sweep)`,
    `${figures.tuneSeconds.toFixed(2)} s, ${sweep.length} scenarios, ${workers === 1 ? 'in one thread' : `${workers} worker threads`}`,
  );
  log('ratio tune / simulate', `${figures.ratio.toFixed(2)}× (goal ≤ 3×)`);
  log(
    'tune: requests replayed per second',
    `${Math.round(figures.requestsReplayedPerSecond).toLocaleString('en-US')} (${replayedRows.toLocaleString('en-US')} rows in ${replays} replays)`,
  );
  log(
    'tune: scenario-requests per second',
    `${Math.round(figures.scenarioRequestsPerSecond).toLocaleString('en-US')} (${reused} of ${sessions * sweep.length} session-scenarios reused as provably identical)`,
  );
  return figures;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const paths =
    process.argv.length > 2 ? process.argv.slice(2) : [fileURLToPath(new URL('../datasets/freecode', import.meta.url))];
  await runTuneBench({ paths });
}
