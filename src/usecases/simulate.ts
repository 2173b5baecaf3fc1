/**
 * The simulate use case (`cachecost simulate`): load each session, replay it under every
 * scenario, and fold its rows into the summary (`SummaryAggregator`), or, when the run gives
 * tables (CSV, HTML details, a database file, `--db`), insert them in DuckDB and read the summary
 * back with SQL. Sessions stream through one at a time, so memory holds one session's content plus
 * the fold (or the tables).
 */
import { join } from 'node:path';
import { CSV_EXPORTS, CostDb } from '../cost/db.js';
import { type SimulateSummary, SummaryAggregator } from '../cost/summary-aggregate.js';
import { ensureDirectory } from '../cost/output-path.js';
import { writeFileAtomic } from '../report/atomic-write.js';
import type { CsvColumn } from '../report/csv.js';
import type { SessionFacts, SimulateReport } from '../report/simulate-report.js';
import { buildSimulateReport } from '../report/simulate-report.js';
import { CachecostError, errorMessage } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import { scenarioRows, type SimulationRows } from '../simulate/to-rows.js';
import type { CompactionRow, RequestRow, SessionRow } from '../cost/rows.js';
import { forEachSession } from './for-each-session.js';
import type { ParallelParse, WorkerScript } from '../ingest/index.js';
import { ReplayShare } from './simulate-share.js';
import { baselineScenario, type OutcomeConfig, replaySession, type SessionOutcome } from './simulate-outcome.js';
import { boundHeapGrowthWhenLarge } from './heap-growth.js';
import { resolvePrices } from './prices.js';
import type { Progress } from './progress.js';
import { type FlagJson, flagJson, sortFlags } from '../report/flag-json.js';
import { readSessionDetails, type SessionDetail, type SessionMeta } from '../report/simulate-details.js';
import { FleetSink } from './fleet-sink.js';
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
  /**
   * Threads (`$CACHECOST_THREADS`): with more than one, replay workers load and replay sessions
   * beside the main thread (`simulate-share.ts`); absent = automatic (a worker where a core is idle
   * and the logs are large enough); `--db` runs in one thread.
   */
  readonly parallel?: ParallelParse | undefined;
  /** The replay worker to start (tests start its TypeScript source); default the compiled one. */
  readonly workerScript?: WorkerScript | null;
  /**
   * Internal (tests): `sql` reads the summary from DuckDB's views even for a run that asks for no
   * table; absent = `auto` (TypeScript unless `csvDir`, `details`, `dbPath` or `record` is given).
   */
  readonly summary?: 'auto' | 'sql';
};

/**
 * Whether the run needs the DuckDB tables: for the CSV files, the HTML drill-down, a database file,
 * a `--db` recording, or when a test forces the SQL summary. Otherwise the summary is folded in
 * TypeScript (`SummaryAggregator`) and DuckDB is never loaded.
 */
function needsTables(request: SimulateSessionsOptions): boolean {
  return (
    (request.csvDir !== null && request.csvDir !== undefined) ||
    request.details === true ||
    (request.dbPath !== null && request.dbPath !== undefined) ||
    (request.record !== null && request.record !== undefined) ||
    request.summary === 'sql'
  );
}

export type SimulateSessionsOutcome = {
  readonly report: SimulateReport;
  /** One-line notes for stderr (unpriced models). */
  readonly notices: readonly string[];
  /** The sessions not replayed for want of per-request data, in discovery order (by host over exports). */
  readonly skipped: readonly string[];
  /** With `details`: each session's timelines, class costs and flags (else empty). */
  readonly details: readonly SessionDetail[];
};

/** Runs the whole simulation and returns the report (and writes CSV files when asked). */
export async function simulateSessions(request: SimulateSessionsOptions): Promise<SimulateSessionsOutcome> {
  const prices = await resolvePrices(request.pricingFile);
  // The flags column needs the default-target scenario their dollars are measured against.
  const baseline = baselineScenario(request.scenarios);
  // An in-memory database opens (DuckDB's own threads create its tables and views) while the first
  // sessions are read and replayed: nothing goes in before the first rows are flushed. A file is
  // opened first, so that a path that cannot be used is reported before any work.
  const dbPath = request.dbPath ?? null;
  // Without tables to give, the summary is folded here as the rows come: no DuckDB (its load, the
  // appends and the views were ~0.5 s of a 4.5 s run on the FreeCode benchmark corpus).
  const fold = needsTables(request) ? null : new SummaryAggregator(prices, scenarioRows(request.scenarios));
  // One DuckDB thread: the summary reads one row per replayed request (~10^4–10^5), too few for a
  // parallel plan to pay for its threads; on the FreeCode benchmark corpus (2 cores, loaded) the
  // append and summary took ~0.63 s of wall time with one thread against ~1.2 s with the default.
  const opening =
    fold !== null
      ? null
      : CostDb.open({ prices, path: dbPath, threads: 1 }).then(async (opened) => {
          await opened.insertScenarios(scenarioRows(request.scenarios));
          return opened;
        });
  // Awaited below; a failure meanwhile is not an unhandled rejection.
  opening?.catch(() => undefined);
  if (dbPath !== null) await opening;
  // A `--db` file is replaced only when the run completes (CostDb.close); a failure keeps the old one.
  let completed = false;
  const record = request.record ?? null;
  let sink: FleetSink | null = null;
  let share: ReplayShare | null = null;
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
    // Without a `--db` recorder nothing reads whole flags: only each scenario's flag kinds are
    // worked out (no hook-allowing walk for a blocked-hook storm's stake, which decides nothing).
    const config: OutcomeConfig = {
      scenarios: request.scenarios,
      prices,
      details: request.details === true,
      flagsUnread: sink === null,
    };
    // Each session's outcome goes into the report's lists in discovery order, whichever thread
    // replayed it. Earlier sessions' rows go in before the next outcome is kept: the last rows are
    // appended once the loop has let go of every session (a 1 GB log's single session holds
    // ~0.5 GB of text the appenders need not wait beside).
    const ordered = new OrderedOutcomes(async (outcome) => {
      request.progress?.increment();
      if (opening !== null && pending.requests.length >= ROWS_PER_INSERT) await pending.flush(await opening);
      const { replay } = outcome;
      if (replay === null) {
        skipped.push(outcome.sessionId);
        return;
      }
      if (replay.details !== null) {
        meta.push(replay.details.meta);
        allFlags.set(outcome.sessionId, replay.details.flags);
      }
      if (fold === null) pending.add(replay.rows);
      else {
        fold.addRequests(replay.rows.requests);
        fold.addCompactions(replay.rows.compactions);
        fold.addSessions(replay.rows.sessions);
      }
      facts.push(replay.facts);
    });
    // Replay workers beside this thread (`simulate-share.ts`); not with `--db`, whose recorder
    // takes each whole session here.
    share =
      sink === null
        ? new ReplayShare({
            config,
            onOutcome: (index, outcome) => void ordered.put(index, outcome),
            explicit: request.parallel !== undefined,
            ...(request.workerScript === undefined ? {} : { workerScript: request.workerScript }),
          })
        : null;
    const issues: IngestIssue[] = [
      ...(await forEachSession(
        request.paths,
        { content: 'text', parallel: request.parallel, share: share ?? undefined },
        async (session: Session, index: number) => {
          heapGrowth.check();
          const { outcome, simulation, flags } = replaySession(session, config);
          await sink?.add(session, simulation, flags);
          await ordered.put(index, outcome);
        },
        (total) => request.progress?.start(total),
      )),
    ];
    await ordered.drained();
    heapGrowth.release();
    const input = { scenarios: request.scenarios, facts, issues };
    if (fold !== null) {
      const { report, notices } = reportOf(fold.summary(), input);
      completed = true;
      return { report, notices, skipped, details: [] };
    }
    if (opening === null) throw new Error('invariant: neither a summary fold nor a database');
    const db = await opening;
    await pending.flush(db);
    const { report, notices } = await summaryOf(db, input);
    if (request.csvDir !== null && request.csvDir !== undefined) await writeCsvTables(db, request.csvDir);
    const details = request.details === true ? await readSessionDetails(db, meta, allFlags) : [];
    if (sink !== null && record !== null) await sink.close(issues, { outDir: null, dbPath: record.dbPath });
    completed = true;
    return { report, notices, skipped, details };
  } catch (error) {
    sink?.abandon();
    throw error;
  } finally {
    await share?.stop();
    heapGrowth.stop();
    const db = opening === null ? null : await opening.catch(() => null);
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
    const skipped = await fleet.unreplayedSessions(db);
    const { report, notices } = await summaryOf(
      db,
      { scenarios: selection.scenarios, facts, issues: [] },
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
    return { report, notices, skipped, details, ingestIssues: load.ingestIssues };
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
  input: SummaryInput,
  earlier: readonly string[] = [],
): Promise<{ readonly report: SimulateReport; readonly notices: string[] }> {
  return reportOf(await db.simulateSummary(), input, earlier);
}

type SummaryInput = {
  readonly scenarios: readonly Scenario[];
  readonly facts: readonly SessionFacts[];
  readonly issues: readonly IngestIssue[];
};

/** The report and its notices from the summary, whether SQL (`summaryOf`) or `SummaryAggregator` computed it. */
function reportOf(
  read: SimulateSummary,
  input: SummaryInput,
  earlier: readonly string[] = [],
): { readonly report: SimulateReport; readonly notices: string[] } {
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
  for (const unpriced of read.unpricedModels) {
    notices.push(
      `model "${unpriced.model}" is unpriced (${unpriced.reason}): ${unpriced.requests} requests left out of every cost`,
    );
  }
  return { report, notices };
}

async function writeCsvTables(db: CostDb, dir: string): Promise<void> {
  // Loaded here: papaparse is for `--csv` runs only.
  const { csvChunks } = await import('../report/csv.js');
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

/**
 * Session outcomes used in discovery order, whichever thread made them and whenever they arrive:
 * `put` an outcome at its index, and every outcome from the next index on that has arrived is
 * used (one at a time: `use` may append rows to DuckDB).
 */
class OrderedOutcomes {
  private readonly waiting = new Map<number, SessionOutcome>();
  private next = 0;
  private using: Promise<void> = Promise.resolve();

  constructor(private readonly use: (outcome: SessionOutcome) => Promise<void>) {}

  /** Resolves once the outcomes now usable are used; rejects with `use`'s failure. */
  put(index: number, outcome: SessionOutcome): Promise<void> {
    this.waiting.set(index, outcome);
    this.using = this.using.then(async () => {
      for (let ready = this.waiting.get(this.next); ready !== undefined; ready = this.waiting.get(this.next)) {
        this.waiting.delete(this.next);
        this.next += 1;
        await this.use(ready);
      }
    });
    // Awaited by the next `put` or `drained`; a failure meanwhile is not an unhandled rejection.
    this.using.catch(() => undefined);
    return this.using;
  }

  /** Every outcome put was used (the run is over: none is missing). */
  async drained(): Promise<void> {
    await this.using;
    if (this.waiting.size > 0) throw new Error('invariant: a session outcome came after one that never came');
  }
}
