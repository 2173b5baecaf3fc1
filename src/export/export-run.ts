/**
 * The export use case: read the logs once, price the measured usage (and replay the scenarios,
 * detect flags, when asked) in the same in-memory cost database as `report` and `simulate`, fill
 * the fleet tables, and write them as Parquet (`writeFleetParquet`) and/or append them to a
 * DuckDB file (`appendFleetDb`). Every amount comes from `request_costs.sql`.
 */
import { insertBillSessions, insertUnknownTtl, openBill } from '../cost/bill.js';
import { CostDb } from '../cost/db.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import { forEachSession } from '../cli/load-sessions.js';
import type { IngestIssue, Session } from '../session/model.js';
import { modelFactsFor } from '../simulate/model-facts.js';
import { isReplayable, simulateSession } from '../simulate/simulate-session.js';
import { fidelityNote, measuredRows, scenarioRows, simulationRows, unknownTtlWriteTokens } from '../simulate/to-rows.js';
import { appendFleetDb } from './append-db.js';
import { FleetRecorder } from './fleet-recorder.js';
import type { RunInfo } from './run-info.js';
import type { ParquetWriteSummary } from './write-parquet.js';
import { writeFleetParquet } from './write-parquet.js';

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
  const db = await CostDb.open({ prices: run.prices, path: null });
  try {
    await openBill(db);
    const recorder = await FleetRecorder.open(db, run);
    const replay = run.scenarios.length > 0;
    if (replay) await db.insertScenarios(scenarioRows(run.scenarios));
    const baseline = run.scenarios.find((scenario) => sameScenario(scenario, BASELINE_SCENARIO));
    const examined = run.scenarios.filter((scenario) => scenario.family !== 'recorded').map((scenario) => scenario.name);
    const seen = new Set<string>();
    let sessions = 0;
    let replayedSessions = 0;
    let flagCount = 0;
    const issues = await forEachSession(
      request.paths,
      { content: replay || run.withText ? 'text' : 'sizes' },
      async (session: Session) => {
        request.progress?.increment();
        sessions += 1;
        // As in `report`: a session of totals only has no request to bill.
        const totalsOnly = session.totalsOnly !== null && session.requests.every((r) => r.usage === null);
        let note: string | null = null;
        const replayed = replay && isReplayable(session);
        if (replayed) {
          const provider = session.requests.find((r) => r.provider !== null)?.provider ?? null;
          const modelFacts = modelFactsFor(run.prices, provider);
          const simulation = simulateSession(session, run.scenarios, { modelFacts });
          const rows = simulationRows(simulation);
          await db.insertRequests(rows.requests);
          await db.insertCompactions(rows.compactions);
          await db.insertSessions(rows.sessions);
          if (run.thresholds !== null && baseline !== undefined) {
            const flags = detectSessionFlags(simulation, { prices: run.prices, modelFacts, thresholds: run.thresholds, baseline, examined });
            recorder.addFlags(flags);
            flagCount += flags.length;
          }
          note = fidelityNote(simulation);
          replayedSessions += 1;
        } else if (!totalsOnly) {
          await db.insertRequests(measuredRows(session));
        }
        if (!totalsOnly) {
          if (!seen.has(session.id)) await insertBillSessions(db, [{ session_id: session.id, project: session.project, host: run.host }]);
          seen.add(session.id);
          await insertUnknownTtl(
            db,
            session.requests.map((r) => ({ session_id: session.id, request_index: r.index, write_unknown_ttl_tokens: r.usage === null ? 0 : unknownTtlWriteTokens(r.usage) })),
          );
        }
        recorder.addSession(session, { replayed, fidelityNote: note });
      },
      (total) => request.progress?.start(total),
    );
    await recorder.finish(issues.length);
    const parquet = request.outDir === null ? null : await writeFleetParquet(db, request.outDir, run);
    if (request.dbPath !== null) await appendFleetDb(db, request.dbPath);
    return { sessions, replayedSessions, flags: flagCount, parquet, issues };
  } finally {
    db.close();
  }
}
