/**
 * `cachecost flags [paths..]`: pathological sessions (replay.md §9) with evidence and the dollars
 * at stake, on the recorded data and on any scenario chosen as in `simulate`. The handler parses
 * the options, calls the use case (`usecases/flags.ts`) and renders (`report/flags-report.ts`).
 */
import { readFile, stat } from 'node:fs/promises';
import type { Argv } from 'yargs';
import type { Severity } from '../../detect/flag.js';
import { SEVERITIES } from '../../detect/flag.js';
import { DEFAULT_THRESHOLDS, type FlagThresholds } from '../../detect/thresholds.js';
import { CachecostError, errorMessage } from '../../session/errors.js';
import type { ScenarioFamily } from '../../simulate/scenario.js';
import { SCENARIO_FAMILY_NAMES as SCENARIO_FAMILIES } from '../../simulate/scenario-families.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import type { PolicyArgs } from '../scenario-options.js';
import {
  anyScenarioOption,
  NO_POLICY_ARGS,
  parseFamilies,
  parseOverrides,
  parseTokenCount,
  withScenarioOptions,
} from '../scenario-options.js';
import { anyPolicyOption, policyArgs, withEngineOptions, withPaths, withRunOptions } from '../shared-options.js';
import { terminalOptions } from '../terminal.js';

/** Exit code when `--fail-on` finds a flag of that severity or worse in the recorded data (1 and 2 are errors and `--strict`). */
export const FLAGS_RAISED_EXIT = 3;

type FlagsArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly scenario: readonly string[];
  readonly target: string | undefined;
  readonly window: string | undefined;
  readonly buffer: string | undefined;
  readonly preserveTurns: string | undefined;
  readonly preserveTokens: string | undefined;
  readonly ttl: '5m' | '1h' | undefined;
  readonly pruning: string | undefined;
  readonly summarizer: string | undefined;
  readonly selector: string | undefined;
  readonly pricing: string | undefined;
  readonly config: string | undefined;
  readonly threshold: readonly string[];
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly failOn: Severity | undefined;
  readonly policy?: PolicyArgs;
  readonly from?: string | undefined;
  readonly db?: string | undefined;
  readonly host?: string | undefined;
  readonly runId?: string | undefined;
  readonly startedAt?: string | undefined;
};

/**
 * The families examined beside `recorded`: `--scenario`'s; without it, `freecode` when any
 * scenario option is given (e.g. `--target 80000`), else none (the log alone).
 */
export function examinedFamilies(args: FlagsArgs): ScenarioFamily[] {
  if (args.scenario.some((entry) => entry.trim() !== '')) return parseFamilies(args.scenario);
  return anyScenarioOption(args) || anyPolicyOption(args.policy ?? NO_POLICY_ARGS) ? ['freecode'] : [];
}

/** `name=value` pairs from `--threshold` (repeated or comma-separated); token counts accept `120k`. */
export function parseThresholdOptions(raw: readonly string[]): Record<string, number> {
  const values: Record<string, number> = {};
  for (const entry of raw
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const match = /^([A-Za-z]+)=(.+)$/.exec(entry);
    const name = match?.[1];
    const text = match?.[2]?.trim();
    if (name === undefined || text === undefined)
      throw new CachecostError('BAD_ARGUMENT', `--threshold expects name=value, got "${entry}"`);
    const value = /Tokens$/.test(name) && /[kKmM]$/.test(text) ? parseTokenCount(text, 'threshold') : Number(text);
    if (!Number.isFinite(value))
      throw new CachecostError('BAD_ARGUMENT', `--threshold ${name} expects a number, got "${text}"`);
    values[name] = value;
  }
  return values;
}

async function readConfig(path: string): Promise<unknown> {
  let text: string;
  try {
    // A FIFO would block the read forever; refuse anything that is not a regular file.
    if (!(await stat(path)).isFile())
      throw new CachecostError('BAD_ARGUMENT', `cannot read --config ${path}: not a regular file`);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof CachecostError) throw error;
    throw new CachecostError('PATH_NOT_FOUND', `cannot read --config ${path}: ${errorMessage(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CachecostError('BAD_ARGUMENT', `--config ${path} is not JSON: ${errorMessage(error)}`);
  }
}

/**
 * Defaults, then the config file, then `--threshold` options. Without either, the defaults as
 * they are (the schema holds them valid: tested), and the schema's module (and zod) is not loaded.
 */
async function thresholdsFrom(args: FlagsArgs): Promise<FlagThresholds> {
  const options = parseThresholdOptions(args.threshold);
  if (args.config === undefined && Object.keys(options).length === 0) return DEFAULT_THRESHOLDS;
  const { resolveThresholds } = await import('../../detect/thresholds-schema.js');
  const layers: unknown[] = [];
  if (args.config !== undefined) layers.push(await readConfig(args.config));
  layers.push(options);
  const resolved = resolveThresholds(layers);
  if (!resolved.ok)
    throw new CachecostError(
      'BAD_ARGUMENT',
      `bad thresholds${args.config === undefined ? '' : ` (--config ${args.config})`}: ${resolved.error}`,
    );
  return resolved.thresholds;
}

async function run(args: FlagsArgs, io: CliIo): Promise<number> {
  if (args.json && args.csv === '-')
    throw new CachecostError('BAD_ARGUMENT', '--json and --csv - both write to stdout; choose one');
  const thresholds = await thresholdsFrom(args);
  const families = examinedFamilies(args);
  const overrides = parseOverrides(args);
  const [
    { pathsOrDefault },
    { checkIssues, reportIssueSummary, skippedSessionsNotice },
    { flagSessions, flagExports },
    report,
    { progressBar },
  ] = await Promise.all([
    import('../default-paths.js'),
    import('../ingest-report.js'),
    import('../../usecases/flags.js'),
    import('../../report/flags-report.js'),
    import('../progress.js'),
  ]);
  let paths: readonly string[];
  let outcome: Awaited<ReturnType<typeof flagSessions>>;
  if (args.from !== undefined) {
    if (args.paths !== undefined && args.paths.length > 0)
      throw new CachecostError(
        'BAD_ARGUMENT',
        '--from reads exports instead of logs: give either paths or --from, not both',
      );
    if (args.db !== undefined)
      throw new CachecostError('BAD_ARGUMENT', '--db records a run over logs; it cannot be combined with --from');
    paths = [args.from];
    const read = await flagExports({ from: args.from, pricingFile: args.pricing ?? null });
    for (const notice of read.notices) io.stderr(`cachecost: ${notice}\n`);
    outcome = read;
  } else {
    paths = pathsOrDefault(args.paths, io);
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
    const progress = await progressBar('flags', 'sessions');
    try {
      outcome = await flagSessions({
        paths,
        families,
        overrides,
        thresholds,
        pricingFile: args.pricing ?? null,
        progress,
        record,
      });
    } finally {
      progress?.stop();
    }
  }
  const { report: built, flags, skipped, issues } = outcome;
  checkIssues(issues, args, io);

  if (args.csv !== undefined) {
    const [{ csvChunks }, { writeFileAtomic }] = await Promise.all([
      import('../../report/csv.js'),
      import('../../report/atomic-write.js'),
    ]);
    if (args.csv === '-') for (const chunk of csvChunks(report.FLAG_CSV_COLUMNS, built.flags)) io.stdout(chunk);
    else await writeFileAtomic(args.csv, csvChunks(report.FLAG_CSV_COLUMNS, built.flags));
  }
  if (args.json) io.stdout(`${JSON.stringify(built, null, 2)}\n`);
  else if (args.csv !== '-') {
    if (built.sessions === 0) io.stderr(`cachecost: no replayable sessions found in ${paths.join(', ')}\n`);
    else io.stdout(`${report.renderFlagsReport(built, terminalOptions(args, io))}\n`);
  }
  const skippedNotice = skippedSessionsNotice(skipped, 'examined', args);
  if (skippedNotice !== null) io.stderr(skippedNotice);
  reportIssueSummary(issues, args, io);

  if (args.failOn === undefined) return 0;
  const { isAtLeast } = await import('../../detect/flag.js');
  const failing = flags.filter(
    (flag) => flag.scenario === 'recorded' && isAtLeast(flag.severity, args.failOn ?? 'critical'),
  );
  if (failing.length === 0) return 0;
  io.stderr(
    `cachecost: ${failing.length} flag(s) at ${args.failOn} or worse in the recorded data (--fail-on ${args.failOn})\n`,
  );
  return FLAGS_RAISED_EXIT;
}

export const flagsCommand: CliCommand = {
  name: 'flags',
  register: (parser: Argv<GlobalArgs>, ctx) =>
    parser.command(
      'flags [paths..]',
      'Find pathological sessions (runaway cost, overflow loops, compaction and hook storms, cache busts, ...) with evidence and dollars at stake',
      (y) =>
        withScenarioOptions(withRunOptions(withEngineOptions(withPaths(y))), {
          target: 'Compaction target of the examined scenarios; a comma list makes one scenario each',
          scenario: `Also examine these simulated scenario families (comma list or repeated): ${SCENARIO_FAMILIES.join(', ')}; default: the log only, or freecode when a scenario option is given`,
          ttl: 'Prompt-cache TTL of the examined scenarios [5m]',
        })
          .option('config', {
            type: 'string',
            requiresArg: true,
            describe: 'JSON file of thresholds (any subset; see README "Flags")',
          })
          .option('threshold', {
            type: 'string',
            array: true,
            default: [],
            describe: 'Set a threshold: name=value (repeated or comma list), e.g. runawayCostRatio=3',
          })
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object instead of tables' })
          .option('csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Also write one CSV row per flag to <file> ("-" for stdout)',
          })
          .option('from', {
            type: 'string',
            requiresArg: true,
            describe: "Read exports' flags instead of logs: a glob such as 'fleet/**/*.parquet' or an export directory",
          })
          .option('db', {
            type: 'string',
            requiresArg: true,
            describe:
              'Append this run (requests, sessions, compactions, flags, runs) to a DuckDB file; every run is kept',
          })
          .option('fail-on', {
            choices: SEVERITIES,
            describe: `Exit ${FLAGS_RAISED_EXIT} when the recorded data raises a flag of this severity or worse (for CI)`,
          })
          .example('$0 flags datasets/freecode', 'Flags of the recorded sessions')
          .example('$0 flags --target 80000,200000 datasets/freecode', 'Which flags other targets would clear or raise')
          .example('$0 flags --fail-on warning --json ~/.freecode', 'CI: exit 3 on any warning or critical flag')
          .example(
            '$0 flags --threshold runawayCostRatio=3 --config flags.json',
            'Thresholds from a file, one overridden',
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
              scenario: args.scenario,
              target: args.target,
              window: args.window,
              buffer: args.buffer,
              preserveTurns: args['preserve-turns'],
              preserveTokens: args['preserve-tokens'],
              ttl: args.ttl,
              pruning: args.pruning,
              summarizer: args.summarizer,
              selector: args.selector,
              pricing: args.pricing,
              config: args.config,
              threshold: args.threshold,
              json: args.json,
              csv: args.csv,
              failOn: args['fail-on'],
              policy: policyArgs(args),
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
