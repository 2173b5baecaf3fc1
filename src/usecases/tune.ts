/**
 * The tune use case (`cachecost tune`): sweep a grid of scenarios over every session, replaying
 * each session once per scenario, and build the cost curves, knees and recommended targets
 * (replay.md §7, §10). The sweep itself lives in `src/tune`.
 */
import { CachecostError } from '../session/errors.js';
import type { SweepGrid } from '../tune/grid.js';
import { MAX_SWEEP_SCENARIOS, sweepScenarios, sweepSize } from '../tune/grid.js';
import type { TuneOutcome } from '../tune/run-tune.js';
import { runTune } from '../tune/run-tune.js';
import type { Progress } from './progress.js';
import { resolvePrices } from './prices.js';
import type { RecordTo } from './run-info.js';
import { fleetRunRow, runInfo } from './run-info.js';
import type { FleetTunePointRow } from '../cost/fleet/recorder.js';
import type { TuneReport } from '../tune/tune-report.js';

export type TuneSessionsOptions = {
  /** Log files or directories of any supported agent. */
  readonly paths: readonly string[];
  /** The axes to sweep and the overrides every scenario shares. */
  readonly grid: SweepGrid;
  readonly pricingFile?: string | null;
  /** Percent above the cheapest point a larger target may cost and still be recommended. */
  readonly tolerancePct: number;
  /** Worker threads; 1 runs in the calling thread. */
  readonly workers: number;
  /** Counted in scenario replays. */
  readonly progress?: Progress | null;
  /** Also append the run and its curve points (`tune_points`) to a DuckDB file that keeps every run. */
  readonly record?: RecordTo | null;
};

/** Every point of every group (each main model, then all sessions) as a `tune_points` row. */
export function tunePointRows(report: TuneReport): FleetTunePointRow[] {
  const rows: FleetTunePointRow[] = [];
  for (const group of [...report.models, report.overall]) {
    const recommended = group.recommendation.kind === 'target' ? group.recommendation.point.scenario : null;
    const knees = new Set(group.curves.map((curve) => curve.knee?.scenario).filter((name) => name !== undefined));
    for (const point of group.points) {
      const { params } = point.scenario;
      const { totals } = point;
      rows.push({
        modelGroup: group.model,
        scenario: point.scenario.name,
        family: point.scenario.family,
        series: point.series,
        targetTokens: params.targetTokens,
        bufferTokens: params.bufferTokens,
        preserveRecentTurns: params.preserveRecentTurns,
        ttl: params.ttl,
        sessions: totals.sessions,
        requests: totals.requests,
        promptTokens: totals.promptTokens,
        cacheReadTokens: totals.cacheReadTokens,
        cacheWrite5mTokens: totals.cacheWrite5mTokens,
        cacheWrite1hTokens: totals.cacheWrite1hTokens,
        uncachedInputTokens: totals.uncachedInputTokens,
        outputTokens: totals.outputTokens,
        compactions: totals.compactions,
        unpricedRequests: totals.unpricedRequests,
        costPicoUsd: point.costPicoUsd,
        savingVsRecordedPicoUsd: point.savingVsRecordedPicoUsd,
        knee: knees.has(point.scenario.name),
        recommended: recommended === point.scenario.name,
      });
    }
  }
  return rows;
}

/** Runs the sweep; `BAD_ARGUMENT` when the grid has more than `MAX_SWEEP_SCENARIOS` scenarios. */
export async function tuneSessions(options: TuneSessionsOptions): Promise<TuneOutcome> {
  const size = sweepSize(options.grid);
  if (size > MAX_SWEEP_SCENARIOS)
    throw new CachecostError('BAD_ARGUMENT', `the grid has ${size} scenarios; at most ${MAX_SWEEP_SCENARIOS}`);
  const scenarios = sweepScenarios(options.grid);
  const prices = await resolvePrices(options.pricingFile);
  const outcome = await runTune({
    paths: options.paths,
    scenarios,
    prices,
    tolerancePct: options.tolerancePct,
    workers: options.workers,
    onStart: (steps) => options.progress?.start(steps),
    onProgress: () => options.progress?.increment(),
  });
  const record = options.record ?? null;
  if (record !== null) {
    const [{ CostDb }, { FleetRecorder }, { appendFleetDb }] = await Promise.all([
      import('../cost/db.js'),
      import('../cost/fleet/recorder.js'),
      import('../cost/fleet/append-db.js'),
    ]);
    const run = runInfo(record.stamp, {
      command: 'tune',
      paths: options.paths,
      scenarios,
      pricingFile: options.pricingFile ?? null,
      prices,
      thresholds: null,
      withText: false,
    });
    const db = await CostDb.open({ prices, path: null });
    try {
      const { openBill } = await import('../cost/bill.js');
      await openBill(db);
      const recorder = await FleetRecorder.open(db, {
        ...fleetRunRow(run),
        sessions: outcome.report.overall.sessionIds.length + outcome.report.skipped.length,
      });
      await recorder.addTunePoints(tunePointRows(outcome.report));
      await recorder.finish(outcome.report.issues);
      await appendFleetDb(db, record.dbPath);
    } finally {
      db.close();
    }
  }
  return outcome;
}
