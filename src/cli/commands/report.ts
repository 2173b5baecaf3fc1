/**
 * `cachecost report [paths..]`: the recorded cost (the bill) by day, session, model or project
 * (issue 5). No simulation: every request's measured usage becomes a `measured` row, priced in
 * DuckDB by the same SQL as `simulate`, and grouped there; this handler loads, inserts, renders.
 */
import type { BillGrouping, BillWindow } from '../../cost/bill.js';
import { BILL_GROUPINGS } from '../../cost/bill.js';
import type { CostDb } from '../../cost/db.js';
import type { BillExclusions, BillReport } from '../../report/bill-report.js';
import { CachecostError } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withPaths, withPricing, withRunOptions } from '../shared-options.js';

type ReportArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly by: BillGrouping;
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly pricing: string | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly from: string | undefined;
  readonly db: string | undefined;
  readonly host: string | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
};

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` date as the UTC epoch ms of its midnight; anything else is `BAD_ARGUMENT`. */
export function parseUtcDate(raw: string, option: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  if (match !== null) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const ms = Date.UTC(year, month - 1, day);
    const back = new Date(ms);
    // Date.UTC rolls 2026-02-30 over to March: a date that does not round-trip does not exist.
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) return ms;
  }
  throw new CachecostError('BAD_ARGUMENT', `--${option} expects a date as YYYY-MM-DD (UTC), got "${raw}"`);
}

/** The half-open window `[since 00:00Z, until + 1 day 00:00Z)` of inclusive UTC dates. */
export function billWindow(since: string | undefined, until: string | undefined): BillWindow {
  const sinceMs = since === undefined ? null : parseUtcDate(since, 'since');
  const untilMs = until === undefined ? null : parseUtcDate(until, 'until') + DAY_MS;
  if (sinceMs !== null && untilMs !== null && sinceMs >= untilMs) {
    throw new CachecostError('BAD_ARGUMENT', `--since ${since ?? ''} is after --until ${until ?? ''}`);
  }
  return { sinceMs, untilMs };
}

type Collected = { readonly excluded: BillExclusions; readonly issues: readonly IngestIssue[] };

async function run(args: ReportArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-') throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  const window = billWindow(args.since, args.until);
  const [{ CostDb }, bill, { measuredRows, unknownTtlWriteTokens }, { resolvePrices }, { pathsOrDefault }, { forEachSession }, ingestReport, { buildBillReport }] =
    await Promise.all([
      import('../../cost/db.js'),
      import('../../cost/bill.js'),
      import('../../simulate/to-rows.js'),
      import('../simulate-pipeline.js'),
      import('../default-paths.js'),
      import('../load-sessions.js'),
      import('../ingest-report.js'),
      import('../../report/bill-report.js'),
    ]);
  if (args.from !== undefined && args.paths !== undefined && args.paths.length > 0) {
    throw new CachecostError('BAD_ARGUMENT', '--from reads exports instead of logs: give either paths or --from, not both');
  }
  if (args.from !== undefined && args.db !== undefined) throw new CachecostError('BAD_ARGUMENT', '--db records a run over logs; it cannot be combined with --from');
  const paths = args.from === undefined ? pathsOrDefault(args.paths, io) : [args.from];
  const prices = await resolvePrices(args.pricing ?? null);
  const db = await CostDb.open({ prices, path: null });
  let report: BillReport;
  try {
    await bill.openBill(db);
    if (args.from !== undefined) {
      report = await fromExports(db, args, window, bill, io);
      return await finish(report, args, io, paths);
    }
    const { hostLabel, runInfo } = await import('../run-context.js');
    const host = hostLabel(args.host);
    const fleet = args.db === undefined ? null : await import('../../export/fleet-recorder.js');
    const recorder =
      fleet === null ? null : await fleet.FleetRecorder.open(db, runInfo('report', args, { paths, scenarios: [], pricingFile: args.pricing ?? null, prices, thresholds: null, withText: false }));
    const seen = new Set<string>();
    let totalsOnlySessions = 0;
    let requestsWithoutUsage = 0;
    let undatedRequestsOutsideWindow = 0;
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    const issues = await forEachSession(paths, { content: 'sizes' }, async (session: Session) => {
      recorder?.addSession(session, { replayed: false, fidelityNote: null });
      if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
        totalsOnlySessions += 1;
        return;
      }
      const measured = session.requests.filter((request) => request.usage !== null);
      requestsWithoutUsage += session.requests.length - measured.length;
      if (bounded) undatedRequestsOutsideWindow += measured.filter((request) => request.timestampMs === null).length;
      await db.insertRequests(measuredRows(session));
      if (!seen.has(session.id)) await bill.insertBillSessions(db, [{ session_id: session.id, project: session.project, host }]);
      seen.add(session.id);
      await bill.insertUnknownTtl(
        db,
        measured.map((request) => ({
          session_id: session.id,
          request_index: request.index,
          write_unknown_ttl_tokens: request.usage === null ? 0 : unknownTtlWriteTokens(request.usage),
        })),
      );
    });
    const collected: Collected = { excluded: { totalsOnlySessions, requestsWithoutUsage, undatedRequestsOutsideWindow }, issues };
    ingestReport.checkIssues(collected.issues, args, io);
    report = buildBillReport({
      by: args.by,
      since: args.since ?? null,
      until: args.until ?? null,
      table: await bill.billTable(db, args.by, window),
      unpricedModels: await bill.billUnpricedModels(db, window),
      excluded: collected.excluded,
      issues: collected.issues,
    });
    if (recorder !== null && args.db !== undefined) {
      await recorder.finish(issues.length);
      const { appendFleetDb } = await import('../../export/append-db.js');
      await appendFleetDb(db, args.db);
    }
  } finally {
    db.close();
  }
  return finish(report, args, io, paths);
}

/** The bill of exports (`--from`): the same tables and SQL, the rows read from Parquet. */
async function fromExports(db: CostDb, args: ReportArgs, window: BillWindow, bill: typeof import('../../cost/bill.js'), io: CliIo): Promise<BillReport> {
  const [{ loadFleet }, { buildBillReport }] = await Promise.all([import('../../export/read-fleet.js'), import('../../report/bill-report.js')]);
  const load = await loadFleet(db, args.from ?? '');
  if (load.ingestIssues > 0) io.stderr(`cachecost: the runs that wrote these exports skipped ${load.ingestIssues} input line(s); their --verbose lists them\n`);
  const bounded = window.sinceMs !== null || window.untilMs !== null;
  return buildBillReport({
    by: args.by,
    since: args.since ?? null,
    until: args.until ?? null,
    table: await bill.billTable(db, args.by, window),
    unpricedModels: await bill.billUnpricedModels(db, window),
    excluded: {
      totalsOnlySessions: load.totalsOnlySessions,
      requestsWithoutUsage: load.requestsWithoutUsage,
      undatedRequestsOutsideWindow: bounded ? load.undatedRequests : 0,
    },
    issues: [],
  });
}

async function finish(report: BillReport, args: ReportArgs, io: CliIo, paths: readonly string[]): Promise<number> {
  if (args.csv !== undefined) {
    const [{ csvChunks }, { billCsvColumns, billCsvRows }, { writeFileAtomic }] = await Promise.all([
      import('../../report/csv.js'),
      import('../../report/bill-csv.js'),
      import('../../report/atomic-write.js'),
    ]);
    const chunks = csvChunks(billCsvColumns(report.by), billCsvRows(report));
    if (args.csv === '-') for (const chunk of chunks) io.stdout(chunk);
    else await writeFileAtomic(args.csv, chunks);
  }
  if (args.json) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else if (args.csv === undefined) {
    if (report.total.requests === 0) io.stderr(`cachecost: no measured requests found in ${paths.join(', ')}\n`);
    const { renderBillReport } = await import('../../report/bill-report.js');
    io.stdout(`${renderBillReport(report)}\n`);
  }
  const { reportIssueSummary } = await import('../ingest-report.js');
  reportIssueSummary(report.issues, args, io);
  return 0;
}

export const reportCommand: CliCommand = {
  name: 'report',
  register: (parser, ctx) =>
    parser.command(
      'report [paths..]',
      'The recorded cost (the bill): measured usage of every request, priced by cache class, by day, session, model or project',
      (y) =>
        withRunOptions(withPricing(withPaths(y)))
          .option('by', { choices: BILL_GROUPINGS, default: 'day' as BillGrouping, describe: 'Group by the UTC day, the session, the model (as logged), the project or the machine (host)' })
          .option('since', { type: 'string', requiresArg: true, describe: 'First day to include, YYYY-MM-DD (UTC, inclusive)' })
          .option('until', { type: 'string', requiresArg: true, describe: 'Last day to include, YYYY-MM-DD (UTC, inclusive)' })
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object (exact USD as decimal strings)' })
          .option('csv', { type: 'string', requiresArg: true, describe: 'Also write the rows and the total as CSV to <file> ("-" for stdout)' })
          .option('from', { type: 'string', requiresArg: true, describe: "Read exports instead of logs: a glob such as 'fleet/**/*.parquet' or an export directory" })
          .option('db', { type: 'string', requiresArg: true, describe: 'Append this run (requests, sessions, runs) to a DuckDB file; every run is kept' })
          .example('$0 report', 'The bill by UTC day')
          .example('$0 report --by model --since 2026-01-01 --until 2026-01-31', 'January by model')
          .example('$0 report --by session --json ~/.claude', 'Per session, as JSON')
          .example('$0 report --by project --csv bill.csv', 'Per project; CSV file')
          .example("$0 report --from 'fleet/**/*.parquet' --by host", 'The bill of many machines\' exports, per machine'),
      (args) => {
        ctx.settle(
          run(
            {
              verbose: args.verbose,
              strict: args.strict,
              paths: args.paths,
              by: args.by,
              since: args.since,
              until: args.until,
              pricing: args.pricing,
              json: args.json,
              csv: args.csv,
              from: args.from,
              db: args.db,
              host: args.host,
              runId: args['run-id'],
              startedAt: args['started-at'],
            },
            ctx.io,
          ),
        );
      },
    ),
};
