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
import { anyScenarioOption, parseFamilies, parseOverrides, withScenarioOptions } from '../scenario-options.js';
import { anyPolicyOption, policyArgs, withEngineOptions, withPaths, withRunOptions } from '../shared-options.js';
import { CachecostError } from '../../session/errors.js';
import { terminalOptions } from '../terminal.js';
import { terminalSafe } from '../../format/terminal-safe.js';
import type { SimulateSessionsOutcome } from '../../usecases/simulate.js';

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
  /** Read exports (a glob or an export directory) instead of logs. */
  readonly from?: string | undefined;
};

/** Whether any option that chooses scenarios was given (else `--from` shows every exported one). */
function scenariosAsked(args: SimulateArgs): boolean {
  return (
    anyScenarioOption(args) ||
    anyPolicyOption(args.policy ?? policyArgs({})) ||
    args.scenario.some((entry) => entry.trim() !== '')
  );
}

/** `simulate --from`: the options that need logs (or a run over logs) are refused in one line each. */
function checkFromArgs(args: SimulateArgs): void {
  const refuse = (why: string): never => {
    throw new CachecostError('BAD_ARGUMENT', why);
  };
  if (args.paths !== undefined && args.paths.length > 0)
    refuse('--from reads exports instead of logs: give either paths or --from, not both');
  if (args.db !== undefined) refuse('--db records a run over logs; it cannot be combined with --from');
  if (args.pricing !== undefined)
    refuse('--pricing cannot apply over --from: every exported cost was priced by the machine that wrote it');
}

async function runFrom(args: SimulateArgs & { readonly from: string }, io: CliIo): Promise<number> {
  checkFromArgs(args);
  const { buildScenarios } = await import('../../simulate/scenario.js');
  const asked = scenariosAsked(args) ? buildScenarios(parseFamilies(args.scenario), parseOverrides(args)) : null;
  const { simulateExports } = await import('../../usecases/simulate.js');
  const outcome = await simulateExports({
    from: args.from,
    scenarios: asked,
    csvDir: args.csv ?? null,
    details: args.html !== undefined,
  });
  if (outcome.ingestIssues > 0)
    io.stderr(
      `cachecost: the runs that wrote these exports skipped ${outcome.ingestIssues} input line(s); their --verbose lists them\n`,
    );
  return render(args, io, outcome, [args.from]);
}

async function run(args: SimulateArgs, io: CliIo): Promise<number> {
  if (args.from !== undefined) return runFrom({ ...args, from: args.from }, io);
  const { buildScenarios } = await import('../../simulate/scenario.js');
  const scenarios = buildScenarios(parseFamilies(args.scenario), parseOverrides(args));
  const { simulateSessions } = await import('../../usecases/simulate.js');
  const { parallelFromEnv } = await import('../../usecases/for-each-session.js');
  const parallel = parallelFromEnv(io.env);
  const { pathsOrDefault } = await import('../default-paths.js');
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
      parallel,
    });
  } finally {
    progress?.stop();
  }
  return render(args, io, outcome, pathsOrDefault(args.paths, io));
}

/** Prints the report (terminal tables or JSON) and writes the files asked for; `paths` = what was read. */
async function render(
  args: SimulateArgs,
  io: CliIo,
  outcome: SimulateSessionsOutcome,
  paths: readonly string[],
): Promise<number> {
  const { checkIssues, reportIssueSummary, skippedSessionsNotice } = await import('../ingest-report.js');
  checkIssues(outcome.report.issues, args, io);
  if (outcome.report.sessions.length === 0) {
    io.stderr(`cachecost: no replayable sessions found in ${paths.join(', ')}\n`);
  } else if (args.json) {
    io.stdout(`${JSON.stringify(outcome.report, null, 2)}\n`);
  } else {
    const { renderSimulateReport } = await import('../../report/simulate-text.js');
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
        paths,
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
  const skipped = skippedSessionsNotice(outcome.skipped, 'replayed', args);
  if (skipped !== null) io.stderr(skipped);
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
        withScenarioOptions(withRunOptions(withEngineOptions(withPaths(y))), {
          target: 'Compaction target in tokens; a comma list makes one scenario each (e.g. 80000,120000,200000)',
          scenario: `Scenario families, comma list or repeated: ${SCENARIO_FAMILIES.join(', ')} [freecode,none]; recorded is always added`,
          ttl: 'Prompt-cache TTL of breakpoint caches [5m]',
        })
          .option('from', {
            type: 'string',
            requiresArg: true,
            describe:
              "Summarize exports instead of logs: a glob such as 'fleet/**/*.parquet' or an export directory; scenario options choose among the exported scenarios [all of them]",
          })
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
            describe:
              'Write how closely the recorded replay reproduces each session (replay.md section 6) to this CSV file',
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
            "$0 simulate --from 'fleet/**/*.parquet'",
            "The savings of every machine's export (made with cachecost export --target ...)",
          )
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
              from: args.from,
            },
            ctx.io,
          ),
        );
      },
    ),
};
