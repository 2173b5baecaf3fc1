/**
 * The export use case (`cachecost export`): read the logs once, price the measured usage (and
 * replay the scenarios, detect flags, when asked) in the same in-memory cost database as `report`
 * and `simulate` (`FleetSink`), and write the fleet tables as Parquet and/or append them to a
 * DuckDB file.
 */
import type { ParquetWriteSummary } from '../cost/fleet/write-parquet.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import type { Flag } from '../detect/flag.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import type { IngestIssue, Session } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import { buildScenarios } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { FleetSink } from './fleet-sink.js';
import { forEachSession } from './for-each-session.js';
import { resolvePrices } from './prices.js';
import type { Progress } from './progress.js';
import { replayWithPrices } from './replay-session.js';
import type { RunStamp } from './run-info.js';
import { runInfo } from './run-info.js';

export type ExportOptions = {
  readonly paths: readonly string[];
  readonly stamp: RunStamp;
  /** Scenarios to replay besides the bill (`buildScenarios`); empty = the bill only, unless `flags`. */
  readonly scenarios?: readonly Scenario[];
  /** Detect flags: replays the recorded policy and the default target when no scenario is given. */
  readonly flags?: boolean;
  readonly thresholds?: FlagThresholds;
  readonly pricingFile?: string | null;
  /** Message text in the items table (default: ids and sizes only). */
  readonly withText?: boolean;
  /** Parquet directory; null = none. */
  readonly outDir: string | null;
  /** DuckDB file the run is appended to; null = none. */
  readonly dbPath: string | null;
  readonly progress?: Progress | null;
};

export type ExportOutcome = {
  readonly sessions: number;
  readonly replayedSessions: number;
  readonly scenarios: readonly Scenario[];
  readonly flags: number;
  readonly parquet: ParquetWriteSummary | null;
  readonly issues: readonly IngestIssue[];
};

function sameScenario(a: Scenario, b: Scenario): boolean {
  return a.name === b.name && JSON.stringify(a.params) === JSON.stringify(b.params);
}

/**
 * What is replayed: the scenarios asked for, or with `flags` alone the recorded policy; whenever
 * anything is replayed the flags' comparison scenario (the default target) is added when missing.
 */
export function exportScenarios(asked: readonly Scenario[], flags: boolean): Scenario[] {
  if (asked.length === 0 && !flags) return [];
  const scenarios = asked.length === 0 ? buildScenarios([], {}) : [...asked];
  if (!scenarios.some((s) => sameScenario(s, BASELINE_SCENARIO))) scenarios.push(BASELINE_SCENARIO);
  return scenarios;
}

/** Runs the export; see the module comment. */
export async function exportSessions(options: ExportOptions): Promise<ExportOutcome> {
  const scenarios = exportScenarios(options.scenarios ?? [], options.flags ?? false);
  const replay = scenarios.length > 0;
  const thresholds = replay ? (options.thresholds ?? DEFAULT_THRESHOLDS) : null;
  const prices = await resolvePrices(options.pricingFile);
  const withText = options.withText ?? false;
  const run = runInfo(options.stamp, {
    command: 'export',
    paths: options.paths,
    scenarios,
    pricingFile: options.pricingFile ?? null,
    prices,
    thresholds,
    withText,
  });
  const baseline = scenarios.find((scenario) => sameScenario(scenario, BASELINE_SCENARIO));
  const examined = scenarios.filter((scenario) => scenario.family !== 'recorded').map((scenario) => scenario.name);
  const sink = await FleetSink.open(run);
  let sessions = 0;
  let replayedSessions = 0;
  let flagCount = 0;
  let issues: readonly IngestIssue[];
  try {
    issues = await forEachSession(
      options.paths,
      { content: replay || withText ? 'text' : 'sizes' },
      async (session: Session) => {
        options.progress?.increment();
        sessions += 1;
        let simulation: SessionSimulation | null = null;
        let flags: Flag[] = [];
        const replayed = replay ? replayWithPrices(session, scenarios, prices) : null;
        if (replayed !== null) {
          simulation = replayed.simulation;
          if (thresholds !== null && baseline !== undefined) {
            flags = detectSessionFlags(simulation, {
              prices,
              modelFacts: replayed.modelFacts,
              thresholds,
              baseline,
              examined,
            });
          }
          replayedSessions += 1;
          flagCount += flags.length;
        }
        await sink.add(session, simulation, flags);
      },
      (total) => options.progress?.start(total),
    );
  } catch (error) {
    sink.abandon();
    throw error;
  }
  const parquet = await sink.close(issues, { outDir: options.outDir, dbPath: options.dbPath });
  return { sessions, replayedSessions, scenarios, flags: flagCount, parquet, issues };
}
