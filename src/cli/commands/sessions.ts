/**
 * `cachecost sessions [paths..]`: one row per session (columns: src/cli/README.md) as a table, `--json` or `--csv`.
 * The handler only loads, summarizes and renders; heavy modules are imported when it runs.
 */
import type { CliCommand, GlobalArgs } from '../command.js';
import { CachecostError } from '../../session/errors.js';
import type { CliIo } from '../io.js';
import { withCache } from '../shared-options.js';

type SessionsArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly cache: boolean;
};

async function run(args: SessionsArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-') throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  const [{ pathsOrDefault }, { forEachSession }, { checkIssues, reportIssueSummary }, { summarizeSession }, { openCliParseCache }] = await Promise.all([
    import('../default-paths.js'),
    import('../../usecases/for-each-session.js'),
    import('../ingest-report.js'),
    import('../../session/summary.js'),
    import('../parse-cache-dir.js'),
  ]);
  const paths = pathsOrDefault(args.paths, io);
  const cache = await openCliParseCache(io, args.cache);
  type Row = ReturnType<typeof summarizeSession>;
  const rows: Row[] = [];
  // Only counts are needed: keep character sizes, not text, so large logs stay small in memory.
  const issues = await forEachSession(paths, { content: 'sizes', cache }, (session) => {
    rows.push(summarizeSession(session));
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
      const { renderSessionSummaryTable } = await import('../../report/session-summary.js');
      io.stdout(`${renderSessionSummaryTable(rows)}\n`);
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
      'One row per session: models, user messages, requests, measured tokens, peak context, compactions, overflows, ingest issues',
      (y) =>
        withCache(y)
          .positional('paths', {
            type: 'string',
            array: true,
            describe: 'Log files or directories of any supported agent [default: every default location: $FREECODE_HOME or ~/.freecode, Claude Code projects, Codex sessions, opencode storage]',
          })
          .option('json', { type: 'boolean', default: false, describe: 'Print a JSON array of camelCase objects' })
          .option('csv', { type: 'string', requiresArg: true, describe: 'Also write the rows as CSV to <file> ("-" for stdout)' })
          .example('$0 sessions', 'Sessions under $FREECODE_HOME or ~/.freecode')
          .example('$0 sessions datasets/freecode', 'Sessions of the generated datasets')
          .example('$0 sessions ~/.freecode/sessions/home__me__app/<id> --json', 'One session as JSON')
          .example('$0 sessions --csv sessions.csv --strict', 'CSV file; fail (exit 2) on any ingest issue'),
      (args) => {
        ctx.settle(run({ verbose: args.verbose, strict: args.strict, paths: args.paths, json: args.json, csv: args.csv, cache: args.cache }, ctx.io));
      },
    ),
};
