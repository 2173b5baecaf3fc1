/**
 * A run's rows on their way to the fleet tables, for commands that replay sessions themselves
 * (`flags --db`, `export`): an in-memory cost database that takes each session — its measured
 * bill, its replay and flags when there are — and at the end writes Parquet and/or appends to a
 * DuckDB file. Every amount is priced by `request_costs.sql`, as in every report.
 */
import { insertBillSessions, insertUnknownTtl, openBill } from '../cost/bill.js';
import { CostDb } from '../cost/db.js';
import type { Flag } from '../detect/flag.js';
import type { IngestIssue, Session } from '../session/model.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { measuredRows, scenarioRows, simulationRows, unknownTtlWriteTokens } from '../simulate/to-rows.js';
import { appendFleetDb } from '../cost/fleet/append-db.js';
import type { FleetFlagRow } from '../cost/fleet/recorder.js';
import { FleetRecorder } from '../cost/fleet/recorder.js';
import type { ParquetWriteSummary } from '../cost/fleet/write-parquet.js';
import { writeFleetParquet } from '../cost/fleet/write-parquet.js';
import type { RunInfo } from './run-info.js';
import { fleetRunRow } from './run-info.js';
import { flagsByScenario, replayFacts } from './simulate-outcome.js';

/** A flag as a row of the `flags` table. */
export function flagRow(flag: Flag): FleetFlagRow {
  const { stake } = flag;
  return {
    sessionId: flag.sessionId,
    scenario: flag.scenario,
    kind: flag.kind,
    severity: flag.severity,
    basis: flag.basis,
    firstRequestIndex: flag.requests.first,
    lastRequestIndex: flag.requests.last,
    evidenceJson: JSON.stringify(flag.evidence),
    summary: flag.summary,
    stake: stake.kind,
    stakePicoUsd: stake.kind === 'priced' ? stake.picoUsd : null,
    stakeAgainst: stake.kind === 'none' ? null : stake.against,
    stakeReason: stake.kind === 'none' ? stake.reason : null,
  };
}

export type FleetTargets = { readonly outDir: string | null; readonly dbPath: string | null };

export class FleetSink {
  private readonly seen = new Set<string>();
  private closed = false;

  private constructor(
    private readonly db: CostDb,
    private readonly recorder: FleetRecorder,
    private readonly run: RunInfo,
  ) {}

  static async open(run: RunInfo): Promise<FleetSink> {
    const db = await CostDb.open({ prices: run.prices, path: null });
    try {
      await openBill(db);
      const recorder = await FleetRecorder.open(db, fleetRunRow(run));
      if (run.scenarios.length > 0) await db.insertScenarios(scenarioRows(run.scenarios));
      return new FleetSink(db, recorder, run);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** One session: its replay's rows when it was replayed (the measured bill is among them), else the bill alone. */
  async add(session: Session, simulation: SessionSimulation | null, flags: readonly Flag[]): Promise<void> {
    // As in `report`: a session of totals only has no request to bill.
    const totalsOnly = session.totalsOnly !== null && session.requests.every((r) => r.usage === null);
    if (simulation !== null) {
      const rows = simulationRows(simulation, flagsByScenario(flags));
      await this.db.insertRequests(rows.requests);
      await this.db.insertCompactions(rows.compactions);
      await this.db.insertSessions(rows.sessions);
      this.recorder.addReplays(
        rows.sessions.map((row) => ({
          sessionId: row.session_id,
          scenario: row.scenario,
          failedTurns: row.failed_turns,
          flags: row.flags,
        })),
      );
    } else if (!totalsOnly) {
      await this.db.insertRequests(measuredRows(session));
    }
    if (!totalsOnly) {
      if (!this.seen.has(session.id))
        await insertBillSessions(this.db, [{ session_id: session.id, project: session.project, host: this.run.host }]);
      this.seen.add(session.id);
      const unknown = session.requests.map((r) => ({
        session_id: session.id,
        request_index: r.index,
        write_unknown_ttl_tokens: r.usage === null ? 0 : unknownTtlWriteTokens(r.usage),
      }));
      await insertUnknownTtl(this.db, unknown);
    }
    this.recorder.addFlags(flags.map(flagRow));
    this.recorder.addSession(session, { replay: simulation === null ? null : replayFacts(simulation) });
  }

  /** Fills the fleet tables, writes them where asked, and closes the database. */
  async close(issues: readonly IngestIssue[], targets: FleetTargets): Promise<ParquetWriteSummary | null> {
    try {
      await this.recorder.finish(issues);
      const parquet = targets.outDir === null ? null : await writeFleetParquet(this.db, targets.outDir, this.run);
      if (targets.dbPath !== null) await appendFleetDb(this.db, targets.dbPath);
      return parquet;
    } finally {
      this.abandon();
    }
  }

  /** Closes without writing (the run failed); closing twice does nothing. */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
