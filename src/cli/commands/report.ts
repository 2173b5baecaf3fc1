/**
 * `cachecost report [paths..]`: the recorded cost (the bill) by day, session, model or project
 * (replay.md §3, the measured usage). The use case (`usecases/bill.ts`) loads and prices; this
 * handler parses the options, calls it and renders.
 */
import type { BillGrouping } from '../../cost/bill.js';
import { BILL_GROUPINGS } from '../../cost/bill.js';
import { CachecostError } from '../../session/errors.js';
import { billWindow } from '../../usecases/bill-window.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withPaths, withPricing } from '../shared-options.js';

type ReportArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly by: BillGrouping;
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly pricing: string | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
};

async function run(args: ReportArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-') throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  // Dates are checked before any file is read.
  billWindow(args.since, args.until);
  const [{ billSessions }, { pathsOrDefault }, ingestReport] = await Promise.all([
    import('../../usecases/bill.js'),
    import('../default-paths.js'),
    import('../ingest-report.js'),
  ]);
  const paths = pathsOrDefault(args.paths, io);
  const report = await billSessions({ paths, by: args.by, since: args.since ?? null, until: args.until ?? null, pricingFile: args.pricing ?? null });
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
    io.stdout(`${renderBillReport(report)}\n`);
  }
  ingestReport.reportIssueSummary(report.issues, args, io);
  return 0;
}

export const reportCommand: CliCommand = {
  name: 'report',
  register: (parser, ctx) =>
    parser.command(
      'report [paths..]',
      'The recorded cost (the bill): measured usage of every request, priced by cache class, by day, session, model or project',
      (y) =>
        withPricing(withPaths(y))
          .option('by', { choices: BILL_GROUPINGS, default: 'day' as BillGrouping, describe: 'Group by the UTC day, the session, the model (as logged) or the project' })
          .option('since', { type: 'string', requiresArg: true, describe: 'First day to include, YYYY-MM-DD (UTC, inclusive)' })
          .option('until', { type: 'string', requiresArg: true, describe: 'Last day to include, YYYY-MM-DD (UTC, inclusive)' })
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object (exact USD as decimal strings)' })
          .option('csv', { type: 'string', requiresArg: true, describe: 'Also write the rows and the total as CSV to <file> ("-" for stdout)' })
          .example('$0 report', 'The bill by UTC day')
          .example('$0 report --by model --since 2026-01-01 --until 2026-01-31', 'January by model')
          .example('$0 report --by session --json ~/.claude', 'Per session, as JSON')
          .example('$0 report --by project --csv bill.csv', 'Per project; CSV file'),
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
            },
            ctx.io,
          ),
        );
      },
    ),
};
