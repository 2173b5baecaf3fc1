/**
 * `cachecost export [paths..] --out DIR`: this machine's logs as exact, typed Parquet tables
 * (requests, sessions, compactions, flags, items, runs), Hive-partitioned by host and date, for
 * fleet-wide SQL; `--db FILE` appends the same rows to a DuckDB file. The work is `src/export`.
 */
import type { Argv } from 'yargs';
import { CachecostError } from '../../session/errors.js';
import type { Scenario } from '../../simulate/scenario.js';
import { SCENARIO_FAMILIES } from '../../simulate/scenario.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { withEngineOptions, withPaths, withRunOptions } from '../shared-options.js';
import { anyScenarioOption, parseFamilies, parseOverrides, withScenarioOptions } from '../scenario-options.js';

type ExportArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly out: string | undefined;
  readonly db: string | undefined;
  readonly host: string | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
  readonly withText: boolean;
  readonly flags: boolean;
  readonly json: boolean;
  readonly target: string | undefined;
  readonly window: string | undefined;
  readonly buffer: string | undefined;
  readonly preserveTurns: string | undefined;
  readonly preserveTokens: string | undefined;
  readonly scenario: readonly string[];
  readonly ttl: '5m' | '1h' | undefined;
  readonly pruning: string | undefined;
  readonly summarizer: string | undefined;
  readonly selector: string | undefined;
  readonly pricing: string | undefined;
};

/** The scenarios asked for, as `simulate` builds them; none when no scenario option is given. */
async function askedScenarios(args: ExportArgs): Promise<Scenario[]> {
  if (!anyScenarioOption(args) && !args.scenario.some((entry) => entry.trim() !== '')) return [];
  const { buildScenarios } = await import('../../simulate/scenario.js');
  return buildScenarios(parseFamilies(args.scenario), parseOverrides(args));
}

async function run(args: ExportArgs, io: CliIo): Promise<number> {
  if (args.out === undefined && args.db === undefined)
    throw new CachecostError('BAD_ARGUMENT', 'export needs --out DIR (Parquet) or --db FILE (DuckDB), or both');
  const asked = await askedScenarios(args);
  const stamp = (await import('../run-context.js')).runStamp(args);
  const [{ exportSessions }, { pathsOrDefault }, { checkIssues, reportIssueSummary }, { progressBar }] =
    await Promise.all([
      import('../../usecases/export.js'),
      import('../default-paths.js'),
      import('../ingest-report.js'),
      import('../progress.js'),
    ]);
  const paths = pathsOrDefault(args.paths, io);
  const progress = await progressBar('export', 'sessions');
  let outcome: Awaited<ReturnType<typeof exportSessions>>;
  try {
    outcome = await exportSessions({
      paths,
      stamp,
      scenarios: asked,
      flags: args.flags,
      pricingFile: args.pricing ?? null,
      withText: args.withText,
      outDir: args.out ?? null,
      dbPath: args.db ?? null,
      progress,
    });
  } finally {
    progress?.stop();
  }
  checkIssues(outcome.issues, args, io);
  const summary = {
    runId: stamp.runId,
    host: stamp.host,
    sessions: outcome.sessions,
    replayedSessions: outcome.replayedSessions,
    scenarios: outcome.scenarios.map((s) => s.name),
    flags: outcome.flags,
    withText: args.withText,
    out: args.out ?? null,
    rows: outcome.parquet?.rows ?? null,
    dates:
      outcome.parquet?.dates.map((name) =>
        name.replace(/^date=/, '').replace('__HIVE_DEFAULT_PARTITION__', 'undated'),
      ) ?? [],
    files: outcome.parquet?.files ?? 0,
    db: args.db ?? null,
    ingestIssues: outcome.issues.length,
  };
  if (args.json) {
    io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const lines = [`export: host ${summary.host}, run ${summary.runId}`];
    const replayed =
      summary.scenarios.length > 0
        ? ` (${summary.replayedSessions} replayed under ${summary.scenarios.join(', ')}; ${summary.flags} flags)`
        : '';
    lines.push(`  ${summary.sessions} sessions${replayed}`);
    if (summary.rows !== null) {
      const counts = Object.entries(summary.rows)
        .map(([table, n]) => `${table} ${n}`)
        .join(', ');
      const first = summary.dates[0] ?? '';
      const span =
        summary.dates.length === 0
          ? 'no dates'
          : `${summary.dates.length} date(s) ${first}${summary.dates.length > 1 ? ` … ${summary.dates.at(-1) ?? ''}` : ''}`;
      lines.push(`  rows: ${counts}`);
      lines.push(
        `  ${summary.files} Parquet files in ${summary.out ?? ''} (host=${summary.host}, ${span}; those partitions replaced)`,
      );
    }
    if (summary.db !== null) lines.push(`  run appended to ${summary.db}`);
    if (!summary.withText) lines.push('  no message text exported (sizes and ids only; --with-text to include it)');
    io.stdout(`${lines.join('\n')}\n`);
  }
  if (outcome.sessions === 0) io.stderr(`cachecost: no sessions found in ${paths.join(', ')}\n`);
  reportIssueSummary(outcome.issues, args, io);
  return 0;
}

export const exportCommand: CliCommand = {
  name: 'export',
  register: (parser: Argv<GlobalArgs>, ctx) =>
    parser.command(
      'export [paths..]',
      'Write exact, typed Parquet tables (requests, sessions, compactions, flags, items, runs) partitioned by host and date, for fleet-wide SQL',
      (y) =>
        withScenarioOptions(withRunOptions(withEngineOptions(withPaths(y))), {
          target: 'Also export simulated rows at these compaction targets (comma list)',
          scenario: `Also export simulated rows of these families (comma list or repeated): ${SCENARIO_FAMILIES.join(', ')}`,
          ttl: 'Prompt-cache TTL of the simulated scenarios [5m]',
        })
          .option('out', {
            type: 'string',
            requiresArg: true,
            describe: 'Directory of the export (<table>/host=<host>/date=<YYYY-MM-DD>/*.parquet)',
          })
          .option('db', {
            type: 'string',
            requiresArg: true,
            describe: 'Also append the rows to this DuckDB file (every run is kept)',
          })
          .option('with-text', {
            type: 'boolean',
            default: false,
            describe: 'Include message text in the items table (default: sizes and ids only)',
          })
          .option('flags', {
            type: 'boolean',
            default: false,
            describe: 'Detect flags (replays the recorded policy and the default target)',
          })
          .option('json', { type: 'boolean', default: false, describe: 'Print what was written as one JSON object' })
          .example(
            '$0 export --out fleet/ --host laptop-ana',
            'The bill of every default log location, as Parquet under fleet/',
          )
          .example(
            '$0 export ~/.claude --out fleet/ --target 80000,120000',
            'Also simulated rows, compactions and flags at two targets',
          )
          .example("$0 report --from 'fleet/**/*.parquet' --by host", 'The fleet bill per machine'),
      (args) => {
        ctx.settle(
          run(
            {
              verbose: args.verbose,
              strict: args.strict,
              paths: args.paths,
              out: args.out,
              db: args.db,
              host: args.host,
              runId: args['run-id'],
              startedAt: args['started-at'],
              withText: args['with-text'],
              flags: args.flags,
              json: args.json,
              target: args.target,
              window: args.window,
              buffer: args.buffer,
              preserveTurns: args['preserve-turns'],
              preserveTokens: args['preserve-tokens'],
              scenario: args.scenario,
              ttl: args.ttl,
              pruning: args.pruning,
              summarizer: args.summarizer,
              selector: args.selector,
              pricing: args.pricing,
            },
            ctx.io,
          ),
        );
      },
    ),
};
