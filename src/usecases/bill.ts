/**
 * The bill use case (`cachecost report`): the recorded cost by day, week, month, session, model,
 * project or host. No simulation: every request's measured usage becomes a `measured` row. With
 * `--db` the rows are priced in DuckDB by the same SQL as `simulate` (`cost/bill.ts`) and grouped
 * there, and the run is appended to the file; without it the same rows are folded into the
 * TypeScript bill (`cost/bill-aggregate.ts`, held equal to that SQL by a differential test).
 */
import type { BillGrouping } from '../cost/bill-groupings.js';
import type { BillSessionRow, BillWindow, SubagentRow, UnknownTtlRow } from '../cost/bill.js';
import type { RequestRow } from '../cost/rows.js';
import type { ParallelParse } from '../ingest/index.js';
import type { ParseCache } from '../ingest/parse-cache.js';
import { NULL_ROW_SLOT, packedRequestsOf, REQUEST_SLOTS, SLOT, SUMS } from '../ingest/session-codec.js';
import type { BillRequest, BillRowLayout } from '../cost/bill-aggregate.js';
import type { BillReport } from '../report/bill-json.js';
import type { Session } from '../session/model.js';
import { billWindow, checkTimeZone, isoDate } from './bill-window.js';
import { forEachSession } from './for-each-session.js';
import { resolvePrices } from './prices.js';
import type { RecordTo } from './run-info.js';
import { fleetRunRow, runInfo } from './run-info.js';

export type BillOptions = {
  /** Log files or directories of any supported agent. */
  readonly paths: readonly string[];
  /** Default `day` (the date of each request in `timeZone`). */
  readonly by?: BillGrouping;
  /** First day to include, `YYYY-MM-DD` or `YYYYMMDD` in `timeZone`; null or absent = unbounded. */
  readonly since?: string | null;
  /** Last day to include (inclusive), same forms; null or absent = unbounded. */
  readonly until?: string | null;
  /** IANA time zone of days, weeks, months and the window; default UTC. */
  readonly timeZone?: string;
  /** List the models within each group. */
  readonly breakdown?: boolean;
  /** Dates (and sessions) ascending by default, models and projects by cost descending; the other way reverses. */
  readonly order?: 'asc' | 'desc' | null;
  /** Only sessions whose project path contains this text. */
  readonly project?: string | null;
  /** Only sessions whose id starts with this. */
  readonly session?: string | null;
  /** A price file overlaying the bundled table (models.dev `api.json` or a LiteLLM map). */
  readonly pricingFile?: string | null;
  /** The parsed-line cache (`ingest/parse-cache.ts`); null or absent = parse every line. */
  readonly cache?: ParseCache | null;
  /** Threads that parse transcripts (`forEachSession`); absent = the default. */
  readonly parallel?: ParallelParse | undefined;
  /** This machine's name, for the `host` grouping (null or absent: the `host` lines say no host). */
  readonly host?: string | null;
  /** Also append the run (requests, sessions, runs) to a DuckDB file that keeps every run. */
  readonly record?: RecordTo | null;
};

/** The bill of exports (`report --from`): the rows many machines exported, grouped by the same SQL. */
export type BillExportsOptions = Omit<BillOptions, 'paths' | 'host' | 'record' | 'cache' | 'parallel'> & {
  /** A glob such as `fleet/**\/*.parquet`, or an export directory. */
  readonly from: string;
};

/** Request rows buffered before they are appended (bounded memory on a 1 GB log). */
const FLUSH_ROWS = 50_000;

/** Whether the groups go the other way than the default (dates and sessions ascending, the rest by cost descending). */
function reverseOrder(by: BillGrouping, order: 'asc' | 'desc' | null | undefined): boolean {
  if (order === undefined || order === null) return false;
  const timeOrder = by === 'day' || by === 'week' || by === 'month' || by === 'session';
  return timeOrder ? order === 'desc' : order === 'asc';
}

/** The grouping, zone and window a bill is asked for, resolved once for every path that prices it. */
type BillFrame = {
  readonly by: BillGrouping;
  readonly timeZone: string;
  readonly breakdown: boolean;
  readonly window: BillWindow;
  readonly since: string | undefined;
  readonly until: string | undefined;
};

function parallelOf(options: BillOptions): { readonly parallel?: ParallelParse } {
  return options.parallel === undefined ? {} : { parallel: options.parallel };
}

function billFrame(options: BillExportsOptions | BillOptions): BillFrame {
  const since = options.since ?? undefined;
  const until = options.until ?? undefined;
  const timeZone = checkTimeZone(options.timeZone ?? 'UTC');
  const window = billWindow(since, until, timeZone);
  return { by: options.by ?? 'day', timeZone, breakdown: options.breakdown ?? false, window, since, until };
}

/** What the report says of the frame it was priced in, whichever path priced it (TypeScript, SQL, exports). */
function reportHeader(frame: BillFrame, order: BillOptions['order']) {
  const { by, timeZone, breakdown, since, until } = frame;
  return {
    by,
    timeZone,
    breakdown,
    reverse: reverseOrder(by, order),
    since: isoDate(since, 'since'),
    until: isoDate(until, 'until'),
  };
}

/** Loads every session under the paths, prices its measured requests and returns the bill. */
export async function billSessions(options: BillOptions): Promise<BillReport> {
  const frame = billFrame(options);
  const { by, timeZone, breakdown, window } = frame;
  const wanted = (session: Session): boolean =>
    (options.session === undefined || options.session === null || session.id.startsWith(options.session)) &&
    (options.project === undefined || options.project === null || (session.project ?? '').includes(options.project));
  const record = options.record ?? null;
  if (record === null) return billInTypeScript(options, { ...frame, wanted });
  const [{ CostDb }, bill, { measuredRows, unknownTtlWriteTokens }, { buildBillReport }] = await Promise.all([
    import('../cost/db.js'),
    import('../cost/bill.js'),
    import('../simulate/to-rows.js'),
    import('../report/bill-json.js'),
  ]);
  const prices = await resolvePrices(options.pricingFile);
  const db = await CostDb.open({ prices, path: null });
  const host = record.stamp.host;
  const fleet = await import('../cost/fleet/recorder.js');
  const recorder = await fleet.FleetRecorder.open(
    db,
    fleetRunRow(
      runInfo(record.stamp, {
        command: 'report',
        paths: options.paths,
        scenarios: [],
        pricingFile: options.pricingFile ?? null,
        prices,
        thresholds: null,
        withText: false,
      }),
    ),
  );
  try {
    await bill.openBill(db);
    const seen = new Set<string>();
    let totalsOnlySessions = 0;
    let requestsWithoutUsage = 0;
    let undatedRequestsOutsideWindow = 0;
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    // Rows are appended in large batches: an appender per session (and its flush) plus INSERT …
    // VALUES per session cost more than the parsing on logs of many small sessions.
    let requestRows: RequestRow[] = [];
    let sessionRows: BillSessionRow[] = [];
    let unknownTtl: UnknownTtlRow[] = [];
    let subagents: SubagentRow[] = [];
    const flush = async (): Promise<void> => {
      await db.insertRequests(requestRows);
      await bill.insertBillSessions(db, sessionRows);
      await bill.insertUnknownTtl(db, unknownTtl);
      await bill.insertSubagents(db, subagents);
      subagents = [];
      requestRows = [];
      sessionRows = [];
      unknownTtl = [];
    };
    const issues = await forEachSession(
      options.paths,
      { content: 'sizes', cache: options.cache ?? null, ...parallelOf(options) },
      async (session: Session) => {
        if (!wanted(session)) return;
        // A recorded run holds the sessions this report covers: the filtered-out ones are not in it.
        recorder.addSession(session, { replay: null });
        if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
          totalsOnlySessions += 1;
          return;
        }
        const measured = session.requests.filter((request) => request.usage !== null);
        requestsWithoutUsage += session.requests.length - measured.length;
        if (bounded) undatedRequestsOutsideWindow += measured.filter((request) => request.timestampMs === null).length;
        for (const row of measuredRows(session)) requestRows.push(row);
        if (!seen.has(session.id)) sessionRows.push({ session_id: session.id, project: session.project, host });
        seen.add(session.id);
        for (const request of measured) {
          const tokens = request.usage === null ? 0 : unknownTtlWriteTokens(request.usage);
          if (tokens > 0)
            unknownTtl.push({ session_id: session.id, request_index: request.index, write_unknown_ttl_tokens: tokens });
          if (request.agentId !== null) subagents.push({ session_id: session.id, request_index: request.index });
        }
        if (requestRows.length >= FLUSH_ROWS) await flush();
      },
    );
    await flush();
    const report = buildBillReport({
      ...reportHeader(frame, options.order),
      table: await bill.billTable(db, by, window, { timeZone, breakdown, subagentsKnown: true }),
      unpricedModels: await bill.billUnpricedModels(db, window),
      excluded: { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow },
      issues,
    });
    await recorder.finish(issues);
    const { appendFleetDb } = await import('../cost/fleet/append-db.js');
    await appendFleetDb(db, record.dbPath);
    return report;
  } finally {
    db.close();
  }
}

type Resolved = BillFrame & { readonly wanted: (session: Session) => boolean };

/**
 * The bill without a database (`report` without `--db`): the same measured rows folded into the
 * TypeScript bill (`cost/bill-aggregate.ts`, held equal to the SQL by a differential test), so the
 * common report loads no DuckDB and holds no request rows.
 */
async function billInTypeScript(options: BillOptions, resolved: Resolved): Promise<BillReport> {
  const { by, timeZone, breakdown, window, wanted } = resolved;
  const [{ BillAggregator }, { measuredBillRequests }, { buildBillReport }] = await Promise.all([
    import('../cost/bill-aggregate.js'),
    import('../simulate/to-rows.js'),
    import('../report/bill-json.js'),
  ]);
  const aggregator = new BillAggregator(await resolvePrices(options.pricingFile), { by, window, timeZone, breakdown });
  const host = options.host ?? null;
  /** Session id → its project as the first session of that id gave it (the SQL keeps one row per id). */
  const projects = new Map<string, string | null>();
  let totalsOnlySessions = 0;
  let requestsWithoutUsage = 0;
  let undatedRequestsOutsideWindow = 0;
  const bounded = window.sinceMs !== null || window.untilMs !== null;
  // `usage`: the bill reads requests, not item sizes (the same requests and issues as `sizes`).
  const issues = await forEachSession(
    options.paths,
    // Nor items: sessions served from the run pack leave them on disk.
    { content: 'usage', cache: options.cache ?? null, readsItems: false, ...parallelOf(options) },
    (session: Session) => {
      if (!wanted(session)) return;
      if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
        totalsOnlySessions += 1;
        return;
      }
      if (!projects.has(session.id)) projects.set(session.id, session.project);
      const project = projects.get(session.id) ?? null;
      const add = (request: BillRequest): void => {
        if (bounded && request.timestampMs === null) undatedRequestsOutsideWindow += 1;
        aggregator.add(request);
      };
      const columns = packedRequestsOf(session);
      if (columns === undefined) {
        const requests = measuredBillRequests(session, { project, host });
        requestsWithoutUsage += session.requests.length - requests.length;
        for (const request of requests) add(request);
      } else {
        // Folded straight from the stored columns, in one loop: no object per request.
        const counts = { measured: 0, undated: 0 };
        aggregator.addColumns(session.id, { project, host }, columns, PACKED_LAYOUT, counts);
        requestsWithoutUsage += columns.timestamps.length - counts.measured;
        undatedRequestsOutsideWindow += counts.undated;
      }
    },
  );
  return buildBillReport({
    ...reportHeader(resolved, options.order),
    table: aggregator.table(),
    unpricedModels: aggregator.unpricedModels(),
    excluded: { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow },
    issues,
  });
}

/**
 * The bill of many machines' exports: the rows are loaded into the same tables (`loadFleet`) and
 * grouped by the same SQL as `billSessions`, so the exports of a fleet's logs give the bill of the
 * logs read together. `ingestIssues` = the lines the exporting runs skipped.
 */
export async function billExports(
  options: BillExportsOptions,
): Promise<{ readonly report: BillReport; readonly ingestIssues: number; readonly hosts: readonly string[] }> {
  const frame = billFrame(options);
  const { by, timeZone, breakdown, window } = frame;
  const [{ CostDb }, bill, { loadFleet }, { buildBillReport }] = await Promise.all([
    import('../cost/db.js'),
    import('../cost/bill.js'),
    import('../cost/fleet/read-fleet.js'),
    import('../report/bill-json.js'),
  ]);
  const db = await CostDb.open({ prices: await resolvePrices(options.pricingFile), path: null });
  try {
    await bill.openBill(db);
    const load = await loadFleet(db, options.from, {
      session: options.session ?? null,
      project: options.project ?? null,
    });
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    const report = buildBillReport({
      ...reportHeader(frame, options.order),
      // An export written before `requests.agent_id` existed has no sub-agent split: unknown (null), never 0.
      table: await bill.billTable(db, by, window, {
        timeZone,
        breakdown,
        subagentsKnown: load.columns.has('requests', 'agent_id'),
      }),
      unpricedModels: await bill.billUnpricedModels(db, window),
      excluded: {
        totalsOnlySessions: load.totalsOnlySessions,
        requestsWithoutUsage: load.requestsWithoutUsage,
        undatedRequestsOutsideWindow: bounded ? load.undatedRequests : 0,
      },
      issues: [],
    });
    return { report, ingestIssues: load.ingestIssues, hosts: load.hosts };
  } finally {
    db.close();
  }
}

/** The run pack's request rows (`ingest/session-codec.ts`) as the bill's fold reads them (`BillAggregator.addColumns`). */
export const PACKED_LAYOUT: BillRowLayout = {
  stride: REQUEST_SLOTS,
  nullSlot: NULL_ROW_SLOT,
  hasUsage: SLOT.hasUsage,
  model: SLOT.model,
  agentId: SLOT.agentId,
  promptTokens: SLOT.promptTokens,
  uncachedInputTokens: SLOT.uncachedInputTokens,
  cacheReadTokens: SLOT.cacheReadTokens,
  cacheWriteTokens: SLOT.cacheWriteTokens,
  cacheWrite5mTokens: SLOT.cacheWrite5mTokens,
  cacheWrite1hTokens: SLOT.cacheWrite1hTokens,
  outputTokens: SLOT.outputTokens,
  sums: SUMS,
};
