/**
 * The simulate use case (`cachecost simulate`): load each session, replay it under every
 * scenario, insert its rows in DuckDB, then read the reports back with SQL. Sessions stream
 * through one at a time, so memory holds one session's content plus the tables.
 */
import { join } from 'node:path';
import type { PriceTable } from '../cost/price-table.js';
import { CSV_EXPORTS, CostDb } from '../cost/db.js';
import { ensureDirectory } from '../cost/output-path.js';
import { writeFileAtomic } from '../report/atomic-write.js';
import type { CsvColumn } from '../report/csv.js';
import { csvChunks } from '../report/csv.js';
import type { SessionFacts, SimulateReport } from '../report/simulate-report.js';
import { buildSimulateReport } from '../report/simulate-report.js';
import { CachecostError, errorMessage } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';
import type { ModelFacts } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import { scenarioRows, simulationRows, type SimulationRows } from '../simulate/to-rows.js';
import type { CompactionRow, RequestRow, SessionRow } from '../cost/rows.js';
import { forEachSession } from './for-each-session.js';
import { boundHeapGrowthWhenLarge } from './heap-growth.js';
import { resolvePrices } from './prices.js';
import type { Progress } from './progress.js';
import { replayWithPrices } from './replay-session.js';
import type { Flag } from '../detect/flag.js';
import { type FlagJson, flagJson, sortFlags } from '../report/flags-report.js';
import { readSessionDetails, type SessionDetail, type SessionMeta } from '../report/simulate-details.js';
import { FleetSink, flagsByScenario, replayFacts } from './fleet-sink.js';
import type { FleetSelection } from './fleet-simulate.js';
import type { RecordTo } from './run-info.js';
import { runInfo } from './run-info.js';

export type SimulateSessionsOptions = {
  /** Log files or directories of any supported agent. */
  readonly paths: readonly string[];
  /** The scenarios to replay (`buildScenarios`); `recorded` among them. */
  readonly scenarios: readonly Scenario[];
  /** A price file overlaying the bundled table; null or absent = the bundled table. */
  readonly pricingFile?: string | null;
  /** Keep the working DuckDB tables in this file (replaced on each run); null or absent = in memory. */
  readonly dbPath?: string | null;
  /** Append the run (bill, replays, flags, runs) to a DuckDB file that keeps every run (`--db`). */
  readonly record?: RecordTo | null;
  /** Also write requests.csv, sessions.csv, scenarios.csv and compactions.csv here. */
  readonly csvDir?: string | null;
  /** Also read each session's timelines and flags for the HTML drill-down. */
  readonly details?: boolean;
  readonly progress?: Progress | null;
};

export type SimulateSessionsOutcome = {
  readonly report: SimulateReport;
  /** One-line notes for stderr (unpriced models, sessions that cannot be replayed). */
  readonly notices: readonly string[];
  /** With `details`: each session's timelines, class costs and flags (else empty). */
  readonly details: readonly SessionDetail[];
};

/** The flags of every scenario (default thresholds). */
function sessionFlags(
  simulation: SessionSimulation,
  baseline: Scenario,
  prices: PriceTable,
  modelFacts: (model: string) => ModelFacts,
): Flag[] {
  const examined = simulation.results.filter((r) => r.scenario.family !== 'recorded').map((r) => r.scenario.name);
  return detectSessionFlags(simulation, { prices, modelFacts, thresholds: DEFAULT_THRESHOLDS, baseline, examined });
}

/** Runs the whole simulation and returns the report (and writes CSV files when asked). */
export async function simulateSessions(request: SimulateSessionsOptions): Promise<SimulateSessionsOutcome> {
  const prices = await resolvePrices(request.pricingFile);
  // The flags column needs the default-target scenario their dollars are measured against.
  const baseline = request.scenarios.find(
    (s) => s.name === BASELINE_SCENARIO.name && JSON.stringify(s.params) === JSON.stringify(BASELINE_SCENARIO.params),
  );
  // An in-memory database opens (DuckDB's own threads create its tables and views) while the first
  // sessions are read and replayed: nothing goes in before the first rows are flushed. A file is
  // opened first, so that a path that cannot be used is reported before any work.
  const dbPath = request.dbPath ?? null;
  // One DuckDB thread: the summary reads one row per replayed request (~10^4–10^5), too few for a
  // parallel plan to pay for its threads; on the FreeCode benchmark corpus (2 cores, loaded) the
  // append and summary took ~0.63 s of wall time with one thread against ~1.2 s with the default.
  const opening = CostDb.open({ prices, path: dbPath, threads: 1 }).then(async (opened) => {
    await opened.insertScenarios(scenarioRows(request.scenarios));
    return opened;
  });
  // Awaited below; a failure meanwhile is not an unhandled rejection.
  opening.catch(() => undefined);
  if (dbPath !== null) await opening;
  // A `--db` file is replaced only when the run completes (CostDb.close); a failure keeps the old one.
  let completed = false;
  const record = request.record ?? null;
  let sink: FleetSink | null = null;
  const heapGrowth = boundHeapGrowthWhenLarge();
  try {
    sink =
      record === null
        ? null
        : await FleetSink.open(
            runInfo(record.stamp, {
              command: 'simulate',
              paths: request.paths,
              scenarios: request.scenarios,
              pricingFile: request.pricingFile ?? null,
              prices,
              thresholds: baseline === undefined ? null : DEFAULT_THRESHOLDS,
              withText: false,
            }),
          );
    const facts: SessionFacts[] = [];
    const pending = new PendingRows();
    const meta: SessionMeta[] = [];
    const allFlags = new Map<string, readonly FlagJson[]>();
    const skipped: string[] = [];
    const issues: IngestIssue[] = [
      ...(await forEachSession(
        request.paths,
        { content: 'text' },
        async (session: Session) => {
          request.progress?.increment();
          // Earlier sessions' rows go in before this one is replayed, not after: the last rows are
          // appended once the loop has let go of every session (a 1 GB log's single session holds
          // ~0.5 GB of text the appenders need not wait beside).
          if (pending.requests.length >= ROWS_PER_INSERT) await pending.flush(await opening);
          heapGrowth.check();
          const replayed = replayWithPrices(session, request.scenarios, prices);
          if (replayed === null) {
            skipped.push(session.id);
            await sink?.add(session, null, []);
            return;
          }
          const { simulation, modelFacts } = replayed;
          const flags = baseline === undefined ? [] : sessionFlags(simulation, baseline, prices, modelFacts);
          const rows = simulationRows(simulation, baseline === undefined ? undefined : flagsByScenario(flags));
          await sink?.add(session, simulation, flags);
          if (request.details === true) {
            const times = session.requests.map((r) => r.timestampMs).filter((t): t is number => t !== null);
            meta.push({
              sessionId: session.id,
              project: session.project,
              startedAtMs: times.length === 0 ? null : Math.min(...times),
            });
            allFlags.set(
              session.id,
              sortFlags(
                flags.map(flagJson),
                request.scenarios.map((sc) => sc.name),
              ),
            );
          }
          pending.add(rows);
          facts.push({ sessionId: session.id, ...replayFacts(simulation) });
        },
        (total) => request.progress?.start(total),
      )),
    ];
    heapGrowth.release();
    const db = await opening;
    await pending.flush(db);
    const { report, notices } = await summaryOf(db, { scenarios: request.scenarios, facts, issues, skipped });
    if (request.csvDir !== null && request.csvDir !== undefined) await writeCsvTables(db, request.csvDir);
    const details = request.details === true ? await readSessionDetails(db, meta, allFlags) : [];
    if (sink !== null && record !== null) await sink.close(issues, { outDir: null, dbPath: record.dbPath });
    completed = true;
    return { report, notices, details };
  } catch (error) {
    sink?.abandon();
    throw error;
  } finally {
    heapGrowth.stop();
    const db = await opening.catch(() => null);
    if (completed) db?.close();
    else db?.abandon();
  }
}

/**
 * Request rows gathered before they are appended: one appender per table per ~`ROWS_PER_INSERT`
 * rows instead of three per session (closing an appender flushes it: 4% of a run over 79 small
 * sessions). The rows go in in the same order; nothing reads the tables before the last flush,
 * which comes after the last session.
 */
const ROWS_PER_INSERT = 50_000;

class PendingRows {
  requests: RequestRow[] = [];
  compactions: CompactionRow[] = [];
  sessions: SessionRow[] = [];

  add(rows: SimulationRows): void {
    // Loops, not push(...rows): a session of 10^5 requests would overflow the argument stack.
    for (const row of rows.requests) this.requests.push(row);
    for (const row of rows.compactions) this.compactions.push(row);
    for (const row of rows.sessions) this.sessions.push(row);
  }

  async flush(db: CostDb): Promise<void> {
    const { requests, compactions, sessions } = this;
    this.requests = [];
    this.compactions = [];
    this.sessions = [];
    if (requests.length > 0) await db.insertRequests(requests);
    if (compactions.length > 0) await db.insertCompactions(compactions);
    if (sessions.length > 0) await db.insertSessions(sessions);
  }
}

/** `simulate --from`: the summary of exports instead of logs. */
export type SimulateExportsOptions = {
  /** A glob such as `fleet/**\/*.parquet`, or an export directory. */
  readonly from: string;
  /** The scenarios to show, as `simulate` builds them from its options; null = every one all the exports replayed. */
  readonly scenarios: readonly Scenario[] | null;
  readonly csvDir?: string | null;
  readonly details?: boolean;
};

/**
 * The savings summary of many machines' exports: their rows are loaded into the same tables
 * (`loadFleet`) and read by the same SQL views as `simulateSessions`, so the exports of a fleet's
 * logs give the summary of the logs simulated together. `ingestIssues` = the lines the exporting
 * runs skipped (the exports hold their count, not the lines).
 */
export async function simulateExports(
  request: SimulateExportsOptions,
): Promise<SimulateSessionsOutcome & { readonly ingestIssues: number }> {
  const [{ openBill }, { loadFleet }, fleet, { fleetFlags }] = await Promise.all([
    import('../cost/bill.js'),
    import('../cost/fleet/read-fleet.js'),
    import('./fleet-simulate.js'),
    import('./fleet-flags.js'),
  ]);
  // The exports are priced where they were written; the table here only words unpriced models' reasons.
  const db = await CostDb.open({ prices: await resolvePrices(null), path: null });
  try {
    await openBill(db);
    const chosen: { selection?: FleetSelection } = {};
    const load = await loadFleet(db, request.from, undefined, async (columns) => {
      chosen.selection = await fleet.selectExportedScenarios(db, columns, request.scenarios);
    });
    const selection = chosen.selection;
    if (selection === undefined) throw new Error('loadFleet did not run the scenario selection');
    await fleet.fillReplays(db, selection);
    const { facts, meta } = await fleet.exportedSessions(db);
    const { report, notices } = await summaryOf(
      db,
      { scenarios: selection.scenarios, facts, issues: [], skipped: await fleet.unreplayedSessions(db) },
      selection.notices,
    );
    if (request.csvDir !== null && request.csvDir !== undefined) await writeCsvTables(db, request.csvDir);
    let details: SessionDetail[] = [];
    if (request.details === true) {
      const shown = new Set(selection.scenarios.map((scenario) => scenario.name));
      const flags = new Map<string, FlagJson[]>();
      if (selection.flags) {
        for (const flag of (await fleetFlags(db)).flags) {
          if (!shown.has(flag.scenario)) continue;
          flags.set(flag.sessionId, [...(flags.get(flag.sessionId) ?? []), flagJson(flag)]);
        }
      }
      const order = selection.scenarios.map((scenario) => scenario.name);
      const sorted = new Map([...flags].map(([id, list]) => [id, sortFlags(list, order)]));
      details = await readSessionDetails(db, meta, sorted);
    }
    return { report, notices, details, ingestIssues: load.ingestIssues };
  } finally {
    db.close();
  }
}

/**
 * The summary and its notices from a filled cost DB, read by the same views whether the rows came
 * from logs replayed here (`simulateSessions`) or from exports (`simulateExports`). `earlier` are
 * notices that come before the ones said here.
 */
async function summaryOf(
  db: CostDb,
  input: {
    readonly scenarios: readonly Scenario[];
    readonly facts: readonly SessionFacts[];
    readonly issues: readonly IngestIssue[];
    readonly skipped: readonly string[];
  },
  earlier: readonly string[] = [],
): Promise<{ readonly report: SimulateReport; readonly notices: string[] }> {
  // Every view read here prices the requests (`request_costs`): priced once, for all of them.
  const read = await db.withFrozenCosts(async () => ({
    sessionCosts: await db.sessionCosts(),
    sessionSavings: await db.sessionSavings(),
    scenarioCosts: await db.scenarioCosts(),
    scenarioSavings: await db.scenarioSavings(),
    fidelity: await db.fidelity(),
    unpricedModels: await db.unpricedModels(),
  }));
  const report = buildSimulateReport({
    scenarios: input.scenarios,
    facts: input.facts,
    sessionCosts: read.sessionCosts,
    sessionSavings: read.sessionSavings,
    scenarioCosts: read.scenarioCosts,
    scenarioSavings: read.scenarioSavings,
    fidelity: read.fidelity,
    issues: input.issues,
  });
  const notices = [...earlier];
  const { skipped } = input;
  if (skipped.length > 0)
    notices.push(`${skipped.length} session(s) without per-request data were not replayed: ${skipped.join(', ')}`);
  for (const unpriced of read.unpricedModels) {
    notices.push(
      `model "${unpriced.model}" is unpriced (${unpriced.reason}): ${unpriced.requests} requests left out of every cost`,
    );
  }
  return { report, notices };
}

async function writeCsvTables(db: CostDb, dir: string): Promise<void> {
  try {
    await ensureDirectory(dir);
  } catch (error) {
    throw new CachecostError('IO_ERROR', `cannot create directory ${dir}: ${errorMessage(error)}`);
  }
  for (const name of CSV_EXPORTS) {
    const table = await db.exportCsv(name);
    const columns: CsvColumn<(typeof table.rows)[number]>[] = table.columns.map((header) => ({
      header,
      value: (row) => row[header] ?? null,
    }));
    await writeFileAtomic(join(dir, `${name}.csv`), csvChunks(columns, table.rows));
  }
}
