/**
 * `cachecost simulate [paths..]`: replay sessions through the engine under scenarios, price every
 * request in DuckDB, and report costs, savings against `recorded`, and the recorded replay's
 * fidelity (replay.md §3–§8). The handler parses the options, calls the use case
 * (`usecases/simulate.ts`) and renders.
 */
import type { Argv } from 'yargs';
import { SCENARIO_FAMILY_NAMES as SCENARIO_FAMILIES } from '../../simulate/scenario-families.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import type { PolicyArgs } from '../scenario-options.js';
import { parseFamilies, parseOverrides } from '../scenario-options.js';
import { policyArgs, withEngineOptions, withPaths, withRunOptions } from '../shared-options.js';
import { terminalOptions } from '../terminal.js';
import { terminalSafe } from '../../format/terminal-safe.js';

type SimulateArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
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
  readonly db: string | undefined;
  readonly csv: string | undefined;
  readonly html?: string | undefined;
  readonly fidelityCsv?: string | undefined;
  readonly json: boolean;
  /** The command line as typed and the version, for the HTML page's provenance. */
  readonly rawArgv?: readonly string[];
  readonly version?: string;
  readonly policy?: PolicyArgs;
  readonly host?: string | undefined;
  readonly runId?: string | undefined;
  readonly startedAt?: string | undefined;
};

async function run(args: SimulateArgs, io: CliIo): Promise<number> {
  const { buildScenarios } = await import('../../simulate/scenario.js');
  const scenarios = buildScenarios(parseFamilies(args.scenario), parseOverrides(args));
  const { simulateSessions } = await import('../../usecases/simulate.js');
  const { pathsOrDefault } = await import('../default-paths.js');
  const { checkIssues, reportIssueSummary } = await import('../ingest-report.js');
  const { progressBar } = await import('../progress.js');
  const progress = await progressBar('simulate', 'sessions');
  let outcome: Awaited<ReturnType<typeof simulateSessions>>;
  // `--db` keeps every run: the run's fleet rows are appended (the working tables stay in memory).
  const record =
    args.db === undefined
      ? null
      : {
          stamp: (await import('../run-context.js')).runStamp({
            host: args.host,
            runId: args.runId,
            startedAt: args.startedAt,
          }),
          dbPath: args.db,
        };
  try {
    outcome = await simulateSessions({
      paths: pathsOrDefault(args.paths, io),
      scenarios,
      pricingFile: args.pricing ?? null,
      record,
      csvDir: args.csv ?? null,
      details: args.html !== undefined,
      progress,
    });
  } finally {
    progress?.stop();
  }
  checkIssues(outcome.report.issues, args, io);
  if (outcome.report.sessions.length === 0) {
    io.stderr(`cachecost: no replayable sessions found in ${pathsOrDefault(args.paths, io).join(', ')}\n`);
  } else if (args.json) {
    io.stdout(`${JSON.stringify(outcome.report, null, 2)}\n`);
  } else {
    const { renderSimulateReport } = await import('../../report/simulate-report.js');
    io.stdout(`${renderSimulateReport(outcome.report, terminalOptions(args, io))}\n`);
  }
  if (args.html !== undefined && outcome.report.sessions.length > 0) {
    const [{ renderSimulateHtml }, { writeFileAtomic }, { provenance }] = await Promise.all([
      import('../../report/simulate-html.js'),
      import('../../report/atomic-write.js'),
      import('../provenance.js'),
    ]);
    const html = await renderSimulateHtml({
      report: outcome.report,
      details: outcome.details,
      provenance: provenance({
        argv: args.rawArgv ?? [],
        version: args.version ?? 'unknown',
        paths: pathsOrDefault(args.paths, io),
        pricing: args.pricing,
        env: io.env,
      }),
    });
    await writeFileAtomic(args.html, html);
  }
  if (args.fidelityCsv !== undefined) {
    const [{ fidelityCsvChunks }, { writeFileAtomic }] = await Promise.all([
      import('../../report/fidelity-csv.js'),
      import('../../report/atomic-write.js'),
    ]);
    await writeFileAtomic(args.fidelityCsv, fidelityCsvChunks(outcome.report.sessions));
  }
  for (const line of outcome.notices) io.stderr(`cachecost: ${terminalSafe(line)}\n`);
  reportIssueSummary(outcome.report.issues, args, io);
  return 0;
}

export const simulateCommand: CliCommand = {
  name: 'simulate',
  register: (parser: Argv<GlobalArgs>, ctx) =>
    parser.command(
      'simulate [paths..]',
      'Replay sessions through the compaction engine under scenarios; price every request by cache class',
      (y) =>
        withRunOptions(withEngineOptions(withPaths(y)))
          .option('target', {
            type: 'string',
            requiresArg: true,
            describe: 'Compaction target in tokens; a comma list makes one scenario each (e.g. 80000,120000,200000)',
          })
          .option('buffer', {
            type: 'string',
            requiresArg: true,
            describe: 'Tokens below the limit where compaction triggers [13000]',
          })
          .option('preserve-turns', {
            type: 'string',
            requiresArg: true,
            describe: 'User turns kept verbatim by a compaction [2]',
          })
          .option('scenario', {
            type: 'string',
            array: true,
            default: [],
            describe: `Scenario families, comma list or repeated: ${SCENARIO_FAMILIES.join(', ')} [freecode,none]; recorded is always added`,
          })
          .option('ttl', { choices: ['5m', '1h'] as const, describe: 'Prompt-cache TTL of breakpoint caches [5m]' })
          .option('db', {
            type: 'string',
            requiresArg: true,
            describe:
              'Append this run (requests, sessions, compactions, flags, runs) to a DuckDB file; every run is kept',
          })
          .option('csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Write requests.csv, sessions.csv, scenarios.csv, compactions.csv into this directory',
          })
          .option('html', {
            type: 'string',
            requiresArg: true,
            describe: 'Also write a self-contained HTML report with a chart to this file',
          })
          .option('fidelity-csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Write how closely the recorded replay reproduces each session (replay.md §6) to this CSV file',
          })
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object instead of tables' })
          .example(
            '$0 simulate --target 120000 datasets/freecode',
            'FreeCode at 120K against the recorded policy and no compaction',
          )
          .example('$0 simulate --target 80000,120000,200000 --csv out/', 'Three targets; CSV tables in out/')
          .example(
            '$0 simulate --scenario window-only,none datasets/freecode',
            'Compaction near the window only, and never',
          )
          .example('$0 simulate --ttl 1h --json ~/.freecode', 'One-hour cache writes; JSON report')
          .example(
            '$0 simulate --scenario observation-masking,clear-tool-uses,opencode --keep-results 6,10',
            'The context policies of the field beside the recorded one',
          ),
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
              db: args.db,
              csv: args.csv,
              html: args.html,
              fidelityCsv: args['fidelity-csv'],
              json: args.json,
              rawArgv: ctx.argv,
              version: ctx.version,
              policy: policyArgs(args),
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
