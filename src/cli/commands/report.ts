/**
 * `cachecost report [paths..]`: the recorded cost (the bill) by day, session, model or project
 * (issue 5). No simulation: every request's measured usage becomes a `measured` row, priced in
 * DuckDB by the same SQL as `simulate`, and grouped there; this handler loads, inserts, renders.
 */
import type { BillGrouping } from '../../cost/bill-groupings.js';
import type { BillSessionRow, BillWindow, UnknownTtlRow } from '../../cost/bill.js';
import type { RequestRow } from '../../cost/rows.js';
import { BILL_GROUPINGS } from '../../cost/bill-groupings.js';
import type { BillExclusions, BillReport } from '../../report/bill-report.js';
import { CachecostError } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withCache, withPaths, withPricing } from '../shared-options.js';

type ReportArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly by: BillGrouping;
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly pricing: string | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly cache: boolean;
};

const DAY_MS = 86_400_000;
/** Request rows buffered before they are appended (bounded memory on a 1 GB log). */
const FLUSH_ROWS = 50_000;

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
  const [{ CostDb }, bill, { measuredRows, unknownTtlWriteTokens }, { resolvePrices }, { pathsOrDefault }, { forEachSession }, ingestReport, { buildBillReport }, { openCliParseCache }] =
    await Promise.all([
      import('../../cost/db.js'),
      import('../../cost/bill.js'),
      import('../../simulate/to-rows.js'),
      import('../../cost/resolve-prices.js'),
      import('../default-paths.js'),
      import('../load-sessions.js'),
      import('../ingest-report.js'),
      import('../../report/bill-report.js'),
      import('../parse-cache-dir.js'),
    ]);
  const paths = pathsOrDefault(args.paths, io);
  const cache = await openCliParseCache(io, args.cache);
  const db = await CostDb.open({ prices: await resolvePrices(args.pricing ?? null), path: null });
  let report: BillReport;
  try {
    await bill.openBill(db);
    const seen = new Set<string>();
    let totalsOnlySessions = 0;
    let requestsWithoutUsage = 0;
    let undatedRequestsOutsideWindow = 0;
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    // Rows are appended in large batches: an appender per session (and its flush) cost more than
    // the parsing on logs of many small sessions.
    let requestRows: RequestRow[] = [];
    let billSessions: BillSessionRow[] = [];
    let unknownTtl: UnknownTtlRow[] = [];
    const flush = async (): Promise<void> => {
      await db.insertRequests(requestRows);
      await bill.insertBillSessions(db, billSessions);
      await bill.insertUnknownTtl(db, unknownTtl);
      requestRows = [];
      billSessions = [];
      unknownTtl = [];
    };
    const issues = await forEachSession(paths, { content: 'sizes', cache }, async (session: Session) => {
      if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
        totalsOnlySessions += 1;
        return;
      }
      const measured = session.requests.filter((request) => request.usage !== null);
      requestsWithoutUsage += session.requests.length - measured.length;
      if (bounded) undatedRequestsOutsideWindow += measured.filter((request) => request.timestampMs === null).length;
      for (const row of measuredRows(session)) requestRows.push(row);
      if (!seen.has(session.id)) billSessions.push({ session_id: session.id, project: session.project });
      seen.add(session.id);
      for (const request of measured) {
        const tokens = request.usage === null ? 0 : unknownTtlWriteTokens(request.usage);
        if (tokens > 0) unknownTtl.push({ session_id: session.id, request_index: request.index, write_unknown_ttl_tokens: tokens });
      }
      if (requestRows.length >= FLUSH_ROWS) await flush();
    });
    await flush();
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
  } finally {
    db.close();
  }

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
        withCache(withPricing(withPaths(y)))
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
              cache: args.cache,
            },
            ctx.io,
          ),
        );
      },
    ),
};
