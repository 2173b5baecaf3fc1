/**
 * `cachecost report [paths..]`: the recorded cost (the bill) by day, week, month, session, model,
 * project or host (replay.md §3, the measured usage). The use case (`usecases/bill.ts`) loads and prices; this
 * handler parses the options, calls it and renders.
 */
import type { BillGrouping } from '../../cost/bill-groupings.js';
import { BILL_GROUPINGS } from '../../cost/bill-groupings.js';
import { CachecostError } from '../../session/errors.js';
import { billWindow, checkTimeZone } from '../../usecases/bill-window.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withCache, withPaths, withPricing, withRunOptions } from '../shared-options.js';
import { terminalOptions } from '../terminal.js';

type ReportArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly by: BillGrouping;
  readonly breakdown: boolean;
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly timezone: string | undefined;
  readonly project: string | undefined;
  readonly session: string | undefined;
  readonly order: 'asc' | 'desc' | undefined;
  readonly pricing: string | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly from: string | undefined;
  readonly db: string | undefined;
  readonly host: string | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
  readonly cache: boolean;
};

/**
 * The default zone: the local zone as `$TZ` names it (`:Europe/Paris` too), UTC when `$TZ` is unset
 * or names no zone. Read here, in the CLI; the system's own zone is not guessed, so the same
 * command gives the same days on every machine unless the user says otherwise.
 */
export function defaultTimeZone(env: Readonly<Record<string, string | undefined>>): string {
  const tz = env['TZ']?.trim();
  if (tz === undefined || tz === '') return 'UTC';
  try {
    return checkTimeZone(tz.startsWith(':') ? tz.slice(1) : tz);
  } catch {
    return 'UTC';
  }
}

async function run(args: ReportArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-')
    throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  // The zone and the dates are checked before any file is read.
  const timeZone = args.timezone === undefined ? defaultTimeZone(io.env) : checkTimeZone(args.timezone);
  billWindow(args.since, args.until, timeZone);
  const [
    { billSessions, billExports },
    { pathsOrDefault },
    ingestReport,
    { hostLabel, runStamp },
    { openCliParseCache },
    { parallelFromEnv },
  ] = await Promise.all([
    import('../../usecases/bill.js'),
    import('../default-paths.js'),
    import('../ingest-report.js'),
    import('../run-context.js'),
    import('../parse-cache-dir.js'),
    import('../../usecases/for-each-session.js'),
  ]);
  const common = {
    by: args.by,
    since: args.since ?? null,
    until: args.until ?? null,
    timeZone,
    breakdown: args.breakdown,
    order: args.order ?? null,
    project: args.project ?? null,
    session: args.session ?? null,
    pricingFile: args.pricing ?? null,
  };
  let report: Awaited<ReturnType<typeof billSessions>>;
  let paths: readonly string[];
  if (args.from !== undefined) {
    if (args.paths !== undefined && args.paths.length > 0)
      throw new CachecostError(
        'BAD_ARGUMENT',
        '--from reads exports instead of logs: give either paths or --from, not both',
      );
    if (args.db !== undefined)
      throw new CachecostError('BAD_ARGUMENT', '--db records a run over logs; it cannot be combined with --from');
    paths = [args.from];
    const read = await billExports({ ...common, from: args.from });
    if (read.ingestIssues > 0)
      io.stderr(
        `cachecost: the runs that wrote these exports skipped ${read.ingestIssues} input line(s); their --verbose lists them\n`,
      );
    report = read.report;
  } else {
    paths = pathsOrDefault(args.paths, io);
    // The machine's name is read only when a row needs it: the host grouping or a --db run.
    const record = args.db === undefined ? null : { stamp: runStamp(args), dbPath: args.db };
    const host =
      record !== null ? record.stamp.host : args.by === 'host' || args.host !== undefined ? hostLabel(args.host) : null;
    const cache = await openCliParseCache(io, args.cache);
    const parallel = parallelFromEnv(io.env);
    report = await billSessions({ ...common, paths, host, record, cache, parallel });
  }
  ingestReport.checkIssues(report.issues, args, io);

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
    io.stdout(`${renderBillReport(report, terminalOptions(args, io))}\n`);
  }
  ingestReport.reportIssueSummary(report.issues, args, io);
  return 0;
}

export const reportCommand: CliCommand = {
  name: 'report',
  register: (parser, ctx) =>
    parser.command(
      'report [paths..]',
      'The recorded cost (the bill): measured usage of every request, priced by cache class, by day, week, month, session, model, project or host',
      (y) =>
        withRunOptions(withCache(withPricing(withPaths(y))))
          .option('by', {
            choices: BILL_GROUPINGS,
            default: 'day' as BillGrouping,
            describe: 'Group by day, week (from Monday), month, session, model (as logged), project or machine (host)',
          })
          .option('breakdown', {
            alias: 'b',
            type: 'boolean',
            default: false,
            describe: 'List the models within each group',
          })
          .option('since', {
            alias: 's',
            type: 'string',
            requiresArg: true,
            describe: 'First day to include, YYYY-MM-DD or YYYYMMDD (inclusive)',
          })
          .option('until', {
            alias: 'u',
            type: 'string',
            requiresArg: true,
            describe: 'Last day to include, YYYY-MM-DD or YYYYMMDD (inclusive)',
          })
          .option('timezone', {
            alias: 'z',
            type: 'string',
            requiresArg: true,
            describe: 'IANA time zone of days and dates [$TZ, else UTC]',
          })
          .option('project', {
            type: 'string',
            requiresArg: true,
            describe: 'Only sessions whose project path contains this text',
          })
          .option('session', {
            type: 'string',
            requiresArg: true,
            describe: 'Only the session whose id starts with this',
          })
          .option('order', {
            choices: ['asc', 'desc'] as const,
            describe: 'Order of the groups: by date (default asc) or, for model and project, by cost (default desc)',
          })
          .option('json', {
            alias: 'j',
            type: 'boolean',
            default: false,
            describe: 'Print one JSON object (exact USD as decimal strings)',
          })
          .option('csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Also write the rows and the total as CSV to <file> ("-" for stdout)',
          })
          .option('from', {
            type: 'string',
            requiresArg: true,
            describe: "Read exports instead of logs: a glob such as 'fleet/**/*.parquet' or an export directory",
          })
          .option('db', {
            type: 'string',
            requiresArg: true,
            describe: 'Append this run (requests, sessions, runs) to a DuckDB file; every run is kept',
          })
          .example('$0 report', 'The bill by day ($TZ, else UTC)')
          .example('$0 report --by model --since 2026-01-01 --until 2026-01-31', 'January by model')
          .example('$0 report --by week --breakdown -z Europe/Paris', 'Weeks in Paris time, models within each')
          .example('$0 report --by session --json ~/.claude', 'Per session, as JSON')
          .example('$0 report --by project --csv bill.csv', 'Per project; CSV file')
          .example(
            "$0 report --from 'fleet/**/*.parquet' --by host",
            "The bill of many machines' exports, per machine",
          ),
      (args) => {
        ctx.settle(
          run(
            {
              verbose: args.verbose,
              strict: args.strict,
              paths: args.paths,
              color: args.color,
              compact: args.compact,
              wide: args.wide,
              by: args.by,
              breakdown: args.breakdown,
              since: args.since,
              until: args.until,
              timezone: args.timezone,
              project: args.project,
              session: args.session,
              order: args.order,
              pricing: args.pricing,
              json: args.json,
              csv: args.csv,
              from: args.from,
              db: args.db,
              host: args.host,
              runId: args['run-id'],
              startedAt: args['started-at'],
              cache: args.cache,
            },
            ctx.io,
          ),
        );
      },
    ),
};
