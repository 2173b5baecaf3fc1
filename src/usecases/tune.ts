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
};

/** Runs the sweep; `BAD_ARGUMENT` when the grid has more than `MAX_SWEEP_SCENARIOS` scenarios. */
export async function tuneSessions(options: TuneSessionsOptions): Promise<TuneOutcome> {
  const size = sweepSize(options.grid);
  if (size > MAX_SWEEP_SCENARIOS) throw new CachecostError('BAD_ARGUMENT', `the grid has ${size} scenarios; at most ${MAX_SWEEP_SCENARIOS}`);
  const scenarios = sweepScenarios(options.grid);
  const prices = await resolvePrices(options.pricingFile);
  return runTune({
    paths: options.paths,
    scenarios,
    prices,
    tolerancePct: options.tolerancePct,
    workers: options.workers,
    onStart: (steps) => options.progress?.start(steps),
    onProgress: () => options.progress?.increment(),
  });
}
