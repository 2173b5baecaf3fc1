/**
 * The export use case: read the logs once, price the measured usage (and replay the scenarios,
 * detect flags, when asked) in the same in-memory cost database as `report` and `simulate`
 * (`FleetSink`), and write the fleet tables as Parquet and/or append them to a DuckDB file.
 */
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import type { Flag } from '../detect/flag.js';
import { forEachSession } from '../cli/load-sessions.js';
import type { IngestIssue, Session } from '../session/model.js';
import { modelFactsFor } from '../simulate/model-facts.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { isReplayable, simulateSession } from '../simulate/simulate-session.js';
import { FleetSink } from './fleet-sink.js';
import type { RunInfo } from './run-info.js';
import type { ParquetWriteSummary } from './write-parquet.js';

export type ExportRequest = {
  readonly paths: readonly string[];
  /** Scenarios in `run.scenarios` are replayed (empty: the bill only); flags need `run.thresholds`. */
  readonly run: RunInfo;
  readonly outDir: string | null;
  readonly dbPath: string | null;
  readonly progress?: { start(total: number): void; increment(): void } | null;
};

export type ExportOutcome = {
  readonly sessions: number;
  readonly replayedSessions: number;
  readonly flags: number;
  readonly parquet: ParquetWriteSummary | null;
  readonly issues: readonly IngestIssue[];
};

function sameScenario(a: { name: string; params: unknown }, b: { name: string; params: unknown }): boolean {
  return a.name === b.name && JSON.stringify(a.params) === JSON.stringify(b.params);
}

/** Runs the export; see the module comment. */
export async function runExport(request: ExportRequest): Promise<ExportOutcome> {
  const { run } = request;
  const sink = await FleetSink.open(run);
  const replay = run.scenarios.length > 0;
  const baseline = run.scenarios.find((scenario) => sameScenario(scenario, BASELINE_SCENARIO));
  const examined = run.scenarios.filter((scenario) => scenario.family !== 'recorded').map((scenario) => scenario.name);
  let sessions = 0;
  let replayedSessions = 0;
  let flagCount = 0;
  let issues: readonly IngestIssue[];
  try {
    issues = await forEachSession(
      request.paths,
      { content: replay || run.withText ? 'text' : 'sizes' },
      async (session: Session) => {
        request.progress?.increment();
        sessions += 1;
        let simulation: SessionSimulation | null = null;
        let flags: Flag[] = [];
        if (replay && isReplayable(session)) {
          const provider = session.requests.find((r) => r.provider !== null)?.provider ?? null;
          const modelFacts = modelFactsFor(run.prices, provider);
          simulation = simulateSession(session, run.scenarios, { modelFacts });
          if (run.thresholds !== null && baseline !== undefined) {
            flags = detectSessionFlags(simulation, { prices: run.prices, modelFacts, thresholds: run.thresholds, baseline, examined });
          }
          replayedSessions += 1;
          flagCount += flags.length;
        }
        await sink.add(session, simulation, flags);
      },
      (total) => request.progress?.start(total),
    );
  } catch (error) {
    sink.abandon();
    throw error;
  }
  const parquet = await sink.close(issues.length, { outDir: request.outDir, dbPath: request.dbPath });
  return { sessions, replayedSessions, flags: flagCount, parquet, issues };
}
