/**
 * `cachecost tune [paths..]`: sweep a grid of scenarios (target × buffer × preserve-turns × TTL ×
 * family), replay every session once per scenario, and report per model and overall the cost
 * curve, its knee and the recommended target (replay.md §7, §10). The handler parses the grid,
 * calls the use case (`usecases/tune.ts`) and renders (`src/report/tune-*`).
 */
import { availableParallelism } from 'node:os';
import type { Argv } from 'yargs';
import { CachecostError } from '../../session/errors.js';
import { SCENARIO_FAMILY_NAMES as SCENARIO_FAMILIES } from '../../simulate/scenario-families.js';
import type { SweepGrid, Ttl } from '../../tune/grid.js';
import type { TuneOutcome } from '../../tune/run-tune.js';
import type { TuneReport } from '../../tune/tune-report.js';
import { defaultSweepWorkers, MAX_SWEEP_SCENARIOS } from '../../tune/limits.js';
import type { CliCommand, GlobalArgs } from '../command.js';
import type { CliIo } from '../io.js';
import { progressBar } from '../progress.js';
import type { PolicyArgs } from '../scenario-options.js';
import {
  NO_POLICY_ARGS,
  parseFamilies,
  parseOverrides,
  parsePolicyOverrides,
  parseTokenCount,
} from '../scenario-options.js';
import { policyArgs, withEngineOptions, withPaths, withRunOptions } from '../shared-options.js';
import { terminalOptions } from '../terminal.js';
import { terminalSafe } from '../../format/terminal-safe.js';

/** The default grid, 40K to 400K in steps of 20K (documented in the README's `cachecost tune`). */
export const DEFAULT_TARGET_GRID = '40000..400000:20000';
export const DEFAULT_TOLERANCE_PCT = 2;

type TuneArgs = GlobalArgs & {
  readonly paths: readonly string[] | undefined;
  readonly target: string;
  readonly buffer: string | undefined;
  readonly preserveTurns: string | undefined;
  readonly ttl: string | undefined;
  readonly scenario: readonly string[];
  readonly window: string | undefined;
  readonly preserveTokens: string | undefined;
  readonly pruning: string | undefined;
  readonly summarizer: string | undefined;
  readonly selector: string | undefined;
  readonly pricing: string | undefined;
  readonly tolerance: number;
  readonly workers: number | undefined;
  readonly json: boolean;
  readonly csv: string | undefined;
  readonly chart: string | undefined;
  readonly chartModel: string | undefined;
  readonly html: string | undefined;
  readonly argv: readonly string[];
  readonly version: string;
  readonly policy?: PolicyArgs;
  readonly db?: string | undefined;
  readonly host?: string | undefined;
  readonly runId?: string | undefined;
  readonly startedAt?: string | undefined;
};

/**
 * A grid axis as typed: comma-separated single values and ranges `start..end:step` (inclusive of
 * `end` when it falls on a step), each number a token count (`40k` = 40,000). Returns the values
 * ascending and without duplicates.
 */
export function parseGridList(raw: string, option: string, { allowZero }: { readonly allowZero: boolean }): number[] {
  const values: number[] = [];
  for (const part of raw.split(',').map((p) => p.trim())) {
    if (part === '') throw new CachecostError('BAD_ARGUMENT', `--${option} has an empty value in "${raw}"`);
    const range = /^(.+?)\.\.(.+?)(?::(.+))?$/.exec(part);
    if (range === null) {
      values.push(parseTokenCount(part, option));
    } else {
      const [, startText = '', endText = '', stepText] = range;
      if (stepText === undefined)
        throw new CachecostError(
          'BAD_ARGUMENT',
          `--${option} range "${part}" needs a step: start..end:step (e.g. 40k..400k:20k)`,
        );
      const start = parseTokenCount(startText, option);
      const end = parseTokenCount(endText, option);
      const step = parseTokenCount(stepText, option);
      if (step === 0) throw new CachecostError('BAD_ARGUMENT', `--${option} range "${part}" has a step of 0`);
      if (end < start) throw new CachecostError('BAD_ARGUMENT', `--${option} range "${part}" ends before it starts`);
      const count = Math.floor((end - start) / step) + 1;
      if (count > MAX_SWEEP_SCENARIOS)
        throw new CachecostError(
          'BAD_ARGUMENT',
          `--${option} range "${part}" has ${count} values; at most ${MAX_SWEEP_SCENARIOS}`,
        );
      for (let value = start; value <= end; value += step) values.push(value);
    }
  }
  if (!allowZero && values.includes(0)) throw new CachecostError('BAD_ARGUMENT', `--${option} values must be positive`);
  return [...new Set(values)].sort((a, b) => a - b);
}

/** A grid option given several times (`--target 40k --target 80k`) is one comma list. */
function joinRepeated(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

/** `--ttl 5m,1h`. */
export function parseTtls(raw: string): Ttl[] {
  const ttls = raw.split(',').map((part) => part.trim());
  const out: Ttl[] = [];
  for (const ttl of ttls) {
    if (ttl !== '5m' && ttl !== '1h')
      throw new CachecostError('BAD_ARGUMENT', `--ttl values must be 5m or 1h; got "${ttl}"`);
    if (!out.includes(ttl)) out.push(ttl);
  }
  return out;
}

/** The sweep grid from the options. */
export function parseGrid(args: TuneArgs): SweepGrid {
  // Target, buffer, preserve-turns and TTL are axes of the grid; the other options hold for every scenario.
  const fixed = parseOverrides({
    window: args.window,
    preserveTokens: args.preserveTokens,
    pruning: args.pruning,
    summarizer: args.summarizer,
    selector: args.selector,
    policy: {
      ...(args.policy ?? NO_POLICY_ARGS),
      keepResults: undefined,
      clearTrigger: undefined,
      pruneProtect: undefined,
    },
  });
  // The two knobs of the editing families are grid axes: ranges allowed, defaults in grid.ts.
  const curves = parsePolicyOverrides(args.policy ?? NO_POLICY_ARGS, (raw, option, opts) =>
    parseGridList(raw, option, opts),
  );
  return {
    families: parseFamilies(args.scenario),
    targetTokens: parseGridList(args.target, 'target', { allowZero: false }),
    bufferTokens: args.buffer === undefined ? null : parseGridList(args.buffer, 'buffer', { allowZero: true }),
    preserveRecentTurns:
      args.preserveTurns === undefined
        ? null
        : parseGridList(args.preserveTurns, 'preserve-turns', { allowZero: true }),
    ttls: args.ttl === undefined ? null : parseTtls(args.ttl),
    keepToolResults: curves.keepToolResults ?? null,
    clearTriggerTokens: curves.clearTriggerTokens ?? null,
    pruneProtectTokens: curves.pruneProtectTokens ?? null,
    fixed,
  };
}

/** `--workers`, else the sweep's default for this machine's cores (`defaultSweepWorkers`). */
function workerCount(raw: number | undefined): number {
  if (raw === undefined) return defaultSweepWorkers(availableParallelism());
  if (!Number.isSafeInteger(raw) || raw < 1)
    throw new CachecostError('BAD_ARGUMENT', `--workers must be a whole number of at least 1; got ${raw}`);
  return raw;
}

function checkOutputs(args: TuneArgs): void {
  if (!Number.isFinite(args.tolerance) || args.tolerance < 0 || args.tolerance > 100) {
    throw new CachecostError('BAD_ARGUMENT', `--tolerance is a percentage from 0 to 100; got ${args.tolerance}`);
  }
  if (args.chart !== undefined && !args.chart.toLowerCase().endsWith('.svg')) {
    throw new CachecostError('BAD_ARGUMENT', `--chart writes an SVG file: name it *.svg (got "${args.chart}")`);
  }
}

async function run(args: TuneArgs, io: CliIo): Promise<number> {
  checkOutputs(args);
  const grid = parseGrid(args);
  const workers = workerCount(args.workers);
  const { tuneSessions } = await import('../../usecases/tune.js');
  const { pathsOrDefault } = await import('../default-paths.js');
  const { checkIssues, reportIssueSummary, skippedSessionsNotice } = await import('../ingest-report.js');
  const paths = pathsOrDefault(args.paths, io);
  const progress = await progressBar('tune', 'scenario replays');
  let outcome: TuneOutcome;
  try {
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
    outcome = await tuneSessions({
      paths,
      grid,
      pricingFile: args.pricing ?? null,
      tolerancePct: args.tolerance,
      workers,
      progress,
      record,
    });
  } finally {
    progress?.stop();
  }
  const { report } = outcome;
  checkIssues(report.issues, args, io);
  if (report.overall.sessionIds.length === 0) {
    io.stderr(`cachecost: no replayable sessions found in ${paths.join(', ')}\n`);
  } else {
    if (args.csv !== undefined) {
      const [{ writeFileAtomic }, { tuneCsvChunks }] = await Promise.all([
        import('../../report/atomic-write.js'),
        import('../../report/tune-csv.js'),
      ]);
      await writeFileAtomic(args.csv, tuneCsvChunks(report));
    }
    if (args.chart !== undefined) await writeChart(report, args.chart, args.chartModel);
    if (args.html !== undefined) {
      const [{ renderTuneHtml }, { writeFileAtomic }, { provenance }] = await Promise.all([
        import('../../report/tune-html.js'),
        import('../../report/atomic-write.js'),
        import('../provenance.js'),
      ]);
      const source = provenance({ argv: args.argv, version: args.version, paths, pricing: args.pricing, env: io.env });
      await writeFileAtomic(args.html, await renderTuneHtml(report, source));
    }
    if (args.json) {
      const { tuneReportJson } = await import('../../report/tune-json.js');
      io.stdout(`${JSON.stringify(tuneReportJson(report), null, 2)}\n`);
    } else {
      const { renderTuneReport } = await import('../../report/tune-table.js');
      io.stdout(`${renderTuneReport(report, terminalOptions(args, io))}\n`);
    }
  }
  const skipped = skippedSessionsNotice(
    report.skipped.map((session) => session.sessionId),
    'replayed',
    args,
  );
  if (skipped !== null) io.stderr(skipped);
  for (const line of outcome.notices) io.stderr(`cachecost: ${terminalSafe(line)}\n`);
  reportIssueSummary(report.issues, args, io);
  return 0;
}

async function writeChart(report: TuneReport, path: string, model: string | undefined): Promise<void> {
  const group = model === undefined ? report.overall : report.models.find((g) => g.model === model);
  if (group === undefined) {
    throw new CachecostError(
      'BAD_ARGUMENT',
      `--chart-model "${model ?? ''}" is not a main model of these sessions (${report.models.map((g) => g.model).join(', ')})`,
    );
  }
  const only = report.models.length === 1 ? report.models[0]?.model : undefined;
  const name = group.model ?? only ?? 'all models';
  const sessions = group.sessionIds.length;
  const [{ tuneChartSpec, renderSvg }, { writeFileAtomic }] = await Promise.all([
    import('../../report/tune-chart.js'),
    import('../../report/atomic-write.js'),
  ]);
  const { bestRecommendation } = await import('../../tune/recommend.js');
  // The chart's x axis is the compaction target: curves along M or a clear trigger are left out.
  const targetCurves = group.curves.filter((curve) => curve.knob === 'target');
  const r = group.recommendation;
  const onTargets =
    r.kind === 'target' && r.knob !== 'target'
      ? bestRecommendation(targetCurves.map((curve) => curve.recommendation))
      : r;
  const chartGroup = { ...group, curves: targetCurves, recommendation: onTargets };
  const svg = await renderSvg(
    tuneChartSpec(
      chartGroup,
      `cachecost tune: cost against compaction target, ${name} (${sessions} session${sessions === 1 ? '' : 's'})`,
    ),
  );
  await writeFileAtomic(path, svg);
}

export const tuneCommand: CliCommand = {
  name: 'tune',
  register: (parser: Argv<GlobalArgs>, ctx) =>
    parser.command(
      'tune [paths..]',
      'Sweep compaction targets (and buffer, preserve-turns, TTL, family); report the cost curve, its knee and a recommended target per model',
      (y) =>
        withRunOptions(withEngineOptions(withPaths(y)))
          .option('target', {
            type: 'string',
            requiresArg: true,
            coerce: joinRepeated,
            default: DEFAULT_TARGET_GRID,
            describe: 'Targets of the curve: values and ranges start..end:step, comma-separated',
          })
          .option('buffer', {
            type: 'string',
            requiresArg: true,
            coerce: joinRepeated,
            describe: 'Buffers to sweep (same syntax) [family default]',
          })
          .option('preserve-turns', {
            type: 'string',
            requiresArg: true,
            coerce: joinRepeated,
            describe: 'User turns kept verbatim, to sweep (same syntax) [2]',
          })
          .option('ttl', {
            type: 'string',
            requiresArg: true,
            coerce: joinRepeated,
            describe: 'Cache TTLs to sweep: 5m, 1h or 5m,1h [5m]',
          })
          .option('scenario', {
            type: 'string',
            array: true,
            default: [],
            describe: `Families, comma list or repeated: ${SCENARIO_FAMILIES.join(', ')} [freecode,none]; the target axis applies to freecode (and freecode+...), --keep-results to observation-masking, --clear-trigger to clear-tool-uses, --prune-protect to opencode; the others are reference points`,
          })
          .option('tolerance', {
            type: 'number',
            requiresArg: true,
            default: DEFAULT_TOLERANCE_PCT,
            describe: 'Percent above the cheapest point a larger target may cost and still be recommended',
          })
          .option('workers', {
            type: 'number',
            requiresArg: true,
            describe: 'Worker threads [available cores - 1, at least 1]; 1 runs in the main thread',
          })
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object instead of tables' })
          .option('csv', {
            type: 'string',
            requiresArg: true,
            describe: 'Write one row per model and scenario to this CSV file',
          })
          .option('chart', {
            type: 'string',
            requiresArg: true,
            describe: 'Draw the cost curves along the compaction target to this SVG file',
          })
          .option('chart-model', {
            type: 'string',
            requiresArg: true,
            describe: 'Chart this main model instead of all sessions',
          })
          .option('html', {
            type: 'string',
            requiresArg: true,
            describe: 'Also write a self-contained HTML page: one cost curve per model, knee and recommendation',
          })
          .option('db', {
            type: 'string',
            requiresArg: true,
            describe: 'Append this run and its curve points (tune_points) to a DuckDB file; every run is kept',
          })
          .example('$0 tune datasets/freecode --chart tune.svg', 'Targets 40K to 400K in 20K steps; chart of the curve')
          .example(
            '$0 tune --target 60k..300k:20k --ttl 5m,1h --csv tune.csv',
            'Two curves (5-minute and 1-hour cache); CSV of every point',
          )
          .example(
            '$0 tune --target 80000,120000,200000 --buffer 8000,13000 --json',
            'Six scenarios plus references; JSON report',
          )
          .example(
            '$0 tune --scenario observation-masking,clear-tool-uses,freecode',
            'One curve per family (M, trigger, target) and the best across them',
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
              buffer: args.buffer,
              preserveTurns: args['preserve-turns'],
              ttl: args.ttl,
              scenario: args.scenario,
              window: args.window,
              preserveTokens: args['preserve-tokens'],
              pruning: args.pruning,
              summarizer: args.summarizer,
              selector: args.selector,
              pricing: args.pricing,
              tolerance: args.tolerance,
              workers: args.workers,
              json: args.json,
              csv: args.csv,
              chart: args.chart,
              chartModel: args['chart-model'],
              html: args.html,
              argv: ctx.argv,
              version: ctx.version,
              policy: policyArgs(args),
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
