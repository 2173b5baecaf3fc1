/**
 * The `tune` pipeline: find the sessions, sweep each one (on worker threads when asked), and
 * build the report. Each log is parsed once; each scenario is replayed once per session.
 */
import { stat } from 'node:fs/promises';
import type { PriceTable } from '../cost/price-table.js';
import type { SessionSource } from '../ingest/index.js';
import { discoverSessions } from '../ingest/index.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import type { WorkerScript } from './sweep-pool.js';
import { runSweeps } from './sweep-pool.js';
import type { TuneReport } from './tune-report.js';
import { buildTuneReport } from './tune-report.js';

export type TuneRequest = {
  readonly paths: readonly string[];
  /** The sweep's scenarios, `recorded` first (`sweepScenarios`). */
  readonly scenarios: readonly Scenario[];
  readonly prices: PriceTable;
  readonly tolerancePct: number;
  readonly workers: number;
  /** Default true; false replays every scenario (to check that reuse changes nothing). */
  readonly reuseEquivalent?: boolean;
  /** Called once the sessions are found, with the number of progress steps to expect. */
  readonly onStart?: (steps: number) => void;
  /** Called after each scenario of each session, with the rows it replayed. */
  readonly onProgress?: (replayedRows: number) => void;
  readonly workerScript?: WorkerScript;
};

/** Work counters for benchmarks; not part of the report (they do not change its bytes). */
export type TuneStats = {
  readonly sessions: number;
  readonly replays: number;
  readonly reused: number;
  readonly replayedRows: number;
};

export type TuneOutcome = {
  readonly report: TuneReport;
  /** One-line notes for stderr (unpriced models; the sessions not replayed are `report.skipped`). */
  readonly notices: readonly string[];
  readonly stats: TuneStats;
};

/**
 * Bytes of a session's files on disk: roughly how long it takes (0 for what cannot be read).
 * Every string field of the source's `files` that names a file counts, whatever the format.
 */
async function sourceBytes(source: SessionSource): Promise<number> {
  const values: unknown[] = Object.values(source.files);
  const paths = values.flatMap((value) =>
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string')
        : [],
  );
  let bytes = 0;
  for (const path of paths)
    bytes += await stat(path).then(
      (info) => (info.isFile() ? info.size : 0),
      () => 0,
    );
  return bytes;
}

/** Runs the sweep over every session under `paths` and builds the report. */
export async function runTune(request: TuneRequest): Promise<TuneOutcome> {
  const { sources, issues: discoveryIssues } = await discoverSessions(request.paths);
  request.onStart?.(sources.length * request.scenarios.length);
  const weights = request.workers > 1 ? await Promise.all(sources.map(sourceBytes)) : undefined;
  const results = await runSweeps(
    sources,
    { scenarios: request.scenarios, prices: request.prices, reuseEquivalent: request.reuseEquivalent ?? true },
    {
      workers: request.workers,
      ...(weights === undefined ? {} : { weights }),
      ...(request.onProgress === undefined ? {} : { onProgress: request.onProgress }),
      ...(request.workerScript === undefined ? {} : { workerScript: request.workerScript }),
    },
  );
  const issues: IngestIssue[] = [...discoveryIssues, ...results.flatMap((result) => result.issues)];
  const sweeps = results.map((result) => result.sweep);
  const report = buildTuneReport({ scenarios: request.scenarios, sweeps, issues, tolerancePct: request.tolerancePct });
  const notices: string[] = [];
  const unpriced = new Set<string>();
  let replays = 0;
  let reused = 0;
  let replayedRows = 0;
  for (const sweep of sweeps) {
    if (sweep.kind !== 'swept') continue;
    for (const model of sweep.unpricedModels) unpriced.add(model);
    replays += sweep.stats.replays;
    reused += sweep.stats.reused;
    replayedRows += sweep.stats.replayedRows;
  }
  for (const model of [...unpriced].sort())
    notices.push(
      `model "${model}" is unpriced: its requests are left out of every cost, and no target is recommended where they count`,
    );
  return { report, notices, stats: { sessions: sweeps.length - report.skipped.length, replays, reused, replayedRows } };
}
