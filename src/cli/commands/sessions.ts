/**
 * `cachecost sessions [paths..]`: one row per session (issue 2) as a table, `--json` or `--csv`.
 * The handler only loads, summarizes and renders; heavy modules are imported when it runs.
 */
import type { CliCommand, GlobalArgs } from '../command.js';
import { CachecostError } from '../../session/errors.js';
import type { CliIo } from '../io.js';
import type { SessionRow } from '../../report/session-summary.js';
import { withCache, withPaths, withPricing } from '../shared-options.js';
import { terminalOptions } from '../terminal.js';

type SessionsArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly pricing: string | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly cache: boolean;
};

async function run(args: SessionsArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-')
    throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  const [
    { pathsOrDefault },
    { forEachSession, parallelFromEnv },
    { checkIssues, reportIssueSummary },
    { summarizeSession },
    { sessionCost },
    { resolvePrices },
    { openCliParseCache },
  ] = await Promise.all([
    import('../default-paths.js'),
    import('../../usecases/for-each-session.js'),
    import('../ingest-report.js'),
    import('../../session/summary.js'),
    import('../../report/session-summary.js'),
    import('../../usecases/prices.js'),
    import('../parse-cache-dir.js'),
  ]);
  const paths = pathsOrDefault(args.paths, io);
  const prices = await resolvePrices(args.pricing ?? null);
  const cache = await openCliParseCache(io, args.cache);
  const rows: SessionRow[] = [];
  // Only counts are needed: requests, usage, prompts and events, no text or item sizes, so large
  // logs stay small in memory and their content is not read.
  const parallel = parallelFromEnv(io.env);
  const issues = await forEachSession(paths, { content: 'usage', cache, parallel }, (session) => {
    rows.push({ ...summarizeSession(session), ...sessionCost(session, prices) });
  });
  checkIssues(issues, args, io);

  if (args.csv !== undefined) {
    const [{ csvChunks }, { SESSION_SUMMARY_COLUMNS }, { writeFileAtomic }] = await Promise.all([
      import('../../report/csv.js'),
      import('../../report/session-summary.js'),
      import('../../report/atomic-write.js'),
    ]);
    if (args.csv === '-') for (const chunk of csvChunks(SESSION_SUMMARY_COLUMNS, rows)) io.stdout(chunk);
    else await writeFileAtomic(args.csv, csvChunks(SESSION_SUMMARY_COLUMNS, rows));
  }
  if (args.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
  } else if (args.csv === undefined) {
    if (rows.length === 0) {
      io.stderr(`cachecost: no sessions found in ${paths.join(', ')}\n`);
    } else {
      const { renderSessionSummaryTable } = await import('../../report/session-summary-table.js');
      io.stdout(`${renderSessionSummaryTable(rows, terminalOptions(args, io))}\n`);
    }
  }
  reportIssueSummary(issues, args, io);
  return 0;
}

export const sessionsCommand: CliCommand = {
  name: 'sessions',
  register: (parser, ctx) =>
    parser.command(
      'sessions [paths..]',
      'One row per session: models, user messages, requests, measured tokens, peak context, compactions, overflows, ingest issues, cost',
      (y) =>
        withCache(withPricing(withPaths(y)))
          .option('json', { type: 'boolean', default: false, describe: 'Print a JSON array of camelCase objects' })
          .option('csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Also write the rows as CSV to <file> ("-" for stdout)',
          })
          .example('$0 sessions', 'Sessions under $FREECODE_HOME or ~/.freecode')
          .example('$0 sessions datasets/freecode', 'Sessions of the generated datasets')
          .example('$0 sessions ~/.freecode/sessions/home__me__app/<id> --json', 'One session as JSON')
          .example('$0 sessions --csv sessions.csv --strict', 'CSV file; fail (exit 2) on any ingest issue'),
      (args) => {
        ctx.settle(
          run(
            {
              verbose: args.verbose,
              strict: args.strict,
              color: args.color,
              compact: args.compact,
              wide: args.wide,
              paths: args.paths,
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
