/**
 * `cachecost report [paths..]`: the recorded cost (the bill) by day, session, model or project
 * (issue 5). No simulation: every request's measured usage becomes a `measured` row, priced in
 * DuckDB by the same SQL as `simulate`, and grouped there; this handler loads, inserts, renders.
 */
import type { BillGrouping, BillWindow } from '../../cost/bill.js';
import { BILL_GROUPINGS } from '../../cost/bill.js';
import type { BillExclusions, BillReport } from '../../report/bill-report.js';
import { CachecostError } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withPaths, withPricing } from '../shared-options.js';
import { type DisplayArgs, terminalOptions } from '../terminal.js';

type ReportArgs = GlobalArgs &
  DisplayArgs & {
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
  };

/** A date as typed, `YYYY-MM-DD` or `YYYYMMDD`, as `[year, month, day]`; anything else is `BAD_ARGUMENT`. */
export function parseDate(raw: string, option: string): readonly [number, number, number] {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(raw.trim());
  if (match !== null && (raw.trim().length === 8 || raw.trim().length === 10)) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const back = new Date(Date.UTC(year, month - 1, day));
    // Date.UTC rolls 2026-02-30 over to March: a date that does not round-trip does not exist.
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) return [year, month, day];
  }
  throw new CachecostError('BAD_ARGUMENT', `--${option} expects a date as YYYY-MM-DD or YYYYMMDD, got "${raw}"`);
}

/** A `YYYY-MM-DD` (or `YYYYMMDD`) date as the UTC epoch ms of its midnight. */
export function parseUtcDate(raw: string, option: string): number {
  const [year, month, day] = parseDate(raw, option);
  return Date.UTC(year, month - 1, day);
}

/** The zone's offset from UTC at `ms`, in ms (local wall time minus UTC). */
function zoneOffsetMs(timeZone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The UTC epoch ms at which the date `[y, m, d]` begins in `timeZone` (two passes settle a DST change). */
export function zonedMidnightMs(date: readonly [number, number, number], timeZone: string): number {
  const wall = Date.UTC(date[0], date[1] - 1, date[2]);
  let ms = wall - zoneOffsetMs(timeZone, wall);
  ms = wall - zoneOffsetMs(timeZone, ms);
  return ms;
}

/** An IANA time zone name as typed, checked; anything unknown is `BAD_ARGUMENT`. */
export function checkTimeZone(raw: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new CachecostError('BAD_ARGUMENT', `--timezone expects an IANA time zone such as UTC or Europe/Paris, got "${raw}"`);
  }
}

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

/** The half-open window `[since 00:00, until + 1 day 00:00)` of inclusive dates in `timeZone`, as UTC ms. */
export function billWindow(since: string | undefined, until: string | undefined, timeZone = 'UTC'): BillWindow {
  const sinceMs = since === undefined ? null : zonedMidnightMs(parseDate(since, 'since'), timeZone);
  let untilMs: number | null = null;
  if (until !== undefined) {
    const [y, m, d] = parseDate(until, 'until');
    const next = new Date(Date.UTC(y, m - 1, d + 1));
    untilMs = zonedMidnightMs([next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()], timeZone);
  }
  if (sinceMs !== null && untilMs !== null && sinceMs >= untilMs) {
    throw new CachecostError('BAD_ARGUMENT', `--since ${since ?? ''} is after --until ${until ?? ''}`);
  }
  return { sinceMs, untilMs };
}

/** `2026-01-02` for a typed date, so the report echoes one spelling. */
function isoDate(raw: string | undefined, option: string): string | null {
  if (raw === undefined) return null;
  const [y, m, d] = parseDate(raw, option);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Whether a session passes --project (its project path contains the text) and --session (its id starts with it). */
function sessionWanted(session: Session, args: ReportArgs): boolean {
  if (args.session !== undefined && !session.id.startsWith(args.session)) return false;
  if (args.project !== undefined && !(session.project ?? '').includes(args.project)) return false;
  return true;
}

type Collected = { readonly excluded: BillExclusions; readonly issues: readonly IngestIssue[] };

async function run(args: ReportArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-') throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  const timeZone = args.timezone === undefined ? defaultTimeZone(io.env) : checkTimeZone(args.timezone);
  const window = billWindow(args.since, args.until, timeZone);
  const display = terminalOptions(args, io);
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
  const paths = pathsOrDefault(args.paths, io);
  const db = await CostDb.open({ prices: await resolvePrices(args.pricing ?? null), path: null });
  let report: BillReport;
  try {
    await bill.openBill(db);
    const seen = new Set<string>();
    let totalsOnlySessions = 0;
    let requestsWithoutUsage = 0;
    let undatedRequestsOutsideWindow = 0;
    const bounded = window.sinceMs !== null || window.untilMs !== null;
    const issues = await forEachSession(paths, { content: 'sizes' }, async (session: Session) => {
      if (!sessionWanted(session, args)) return;
      if (session.totalsOnly !== null && session.requests.every((request) => request.usage === null)) {
        totalsOnlySessions += 1;
        return;
      }
      const measured = session.requests.filter((request) => request.usage !== null);
      requestsWithoutUsage += session.requests.length - measured.length;
      if (bounded) undatedRequestsOutsideWindow += measured.filter((request) => request.timestampMs === null).length;
      await db.insertRequests(measuredRows(session));
      if (!seen.has(session.id)) await bill.insertBillSessions(db, [{ session_id: session.id, project: session.project }]);
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
    const timeOrder = args.by === 'day' || args.by === 'week' || args.by === 'month' || args.by === 'session';
    report = buildBillReport({
      by: args.by,
      timeZone,
      breakdown: args.breakdown,
      reverse: args.order !== undefined && (timeOrder ? args.order === 'desc' : args.order === 'asc'),
      since: isoDate(args.since, 'since'),
      until: isoDate(args.until, 'until'),
      table: await bill.billTable(db, args.by, window, { timeZone, breakdown: args.breakdown }),
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
    io.stdout(`${renderBillReport(report, display)}\n`);
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
          .option('by', { choices: BILL_GROUPINGS, default: 'day' as BillGrouping, describe: 'Group by day, week (from Monday), month, session, model (as logged) or project' })
          .option('breakdown', { alias: 'b', type: 'boolean', default: false, describe: 'List the models within each group' })
          .option('since', { alias: 's', type: 'string', requiresArg: true, describe: 'First day to include, YYYY-MM-DD or YYYYMMDD (inclusive)' })
          .option('until', { alias: 'u', type: 'string', requiresArg: true, describe: 'Last day to include, YYYY-MM-DD or YYYYMMDD (inclusive)' })
          .option('timezone', { alias: 'z', type: 'string', requiresArg: true, describe: 'IANA time zone of days and dates [$TZ, else the system zone, else UTC]' })
          .option('project', { type: 'string', requiresArg: true, describe: 'Only sessions whose project path contains this text' })
          .option('session', { type: 'string', requiresArg: true, describe: 'Only the session whose id starts with this' })
          .option('order', { choices: ['asc', 'desc'] as const, describe: 'Order of the groups: by date (default asc) or, for model and project, by cost (default desc)' })
          .option('json', { alias: 'j', type: 'boolean', default: false, describe: 'Print one JSON object (exact USD as decimal strings)' })
          .option('csv', { type: 'string', requiresArg: true, describe: 'Also write the rows and the total as CSV to <file> ("-" for stdout)' })
          .example('$0 report', 'The bill by UTC day')
          .example('$0 report --by model --since 2026-01-01 --until 2026-01-31', 'January by model')
          .example('$0 report --by week --breakdown -z Europe/Paris', 'Weeks in Paris time, models within each')
          .example('$0 report --by session --json ~/.claude', 'Per session, as JSON')
          .example('$0 report --by project --csv bill.csv', 'Per project; CSV file'),
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
            },
            ctx.io,
          ),
        );
      },
    ),
};
