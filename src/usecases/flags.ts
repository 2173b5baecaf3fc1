/**
 * The flags use case (`cachecost flags`): pathological sessions (replay.md §9) with evidence and
 * the dollars at stake, on the recorded data and on any scenario examined beside it.
 */
import type { FlagThresholds } from '../detect/thresholds.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import type { Flag } from '../detect/flag.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import type { FlagsReport } from '../report/flags-report.js';
import { buildFlagsReport } from '../report/flags-report.js';
import { isIngestNote } from '../session/ingest-note.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario, ScenarioFamily, ScenarioOverrides } from '../simulate/scenario.js';
import { buildScenarios, familyDefaults } from '../simulate/scenario.js';
import { forEachSession } from './for-each-session.js';
import { resolvePrices } from './prices.js';
import type { Progress } from './progress.js';
import { replayWithPrices } from './replay-session.js';
import type { RecordTo } from './run-info.js';
import { runInfo } from './run-info.js';

export type FlagSessionsOptions = {
  /** Log files or directories of any supported agent. */
  readonly paths: readonly string[];
  /** Scenario families examined beside `recorded`; empty or absent = the log alone. */
  readonly families?: readonly ScenarioFamily[];
  /** Parameters of the examined scenarios (e.g. `{ targetTokens: [80000, 200000] }`). */
  readonly overrides?: ScenarioOverrides;
  /** Default: `DEFAULT_THRESHOLDS` (`resolveThresholds` validates a partial set). */
  readonly thresholds?: FlagThresholds;
  readonly pricingFile?: string | null;
  readonly progress?: Progress | null;
  /** Also append the run (bill, replays, flags, runs) to a DuckDB file that keeps every run. */
  readonly record?: RecordTo | null;
};

export type FlagSessionsOutcome = {
  readonly report: FlagsReport;
  /** Every flag raised, in detection order (the report holds them sorted, as JSON). */
  readonly flags: readonly Flag[];
  /** Sessions without per-request data, not examined. */
  readonly skipped: readonly string[];
  readonly issues: readonly IngestIssue[];
};

/** `recorded`, the baseline, then the examined scenarios (the baseline once even when asked for). */
export function flagScenarios(
  families: readonly ScenarioFamily[],
  overrides: ScenarioOverrides,
): { readonly all: Scenario[]; readonly examined: string[]; readonly baseline: Scenario } {
  const asked =
    families.length === 0
      ? []
      : buildScenarios(families, overrides).filter((scenario) => scenario.family !== 'recorded');
  const recorded: Scenario = { name: 'recorded', family: 'recorded', params: familyDefaults('recorded') };
  const all = [recorded, BASELINE_SCENARIO, ...asked.filter((scenario) => scenario.name !== BASELINE_SCENARIO.name)];
  return { all, examined: asked.map((scenario) => scenario.name), baseline: BASELINE_SCENARIO };
}

/** Replays every session under the paths and runs every detector on it. */
export async function flagSessions(options: FlagSessionsOptions): Promise<FlagSessionsOutcome> {
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const scenarios = flagScenarios(options.families ?? [], options.overrides ?? {});
  const prices = await resolvePrices(options.pricingFile);
  const flags: Flag[] = [];
  const skipped: string[] = [];
  let sessions = 0;
  const record = options.record ?? null;
  const sink =
    record === null
      ? null
      : await (
          await import('./fleet-sink.js')
        ).FleetSink.open(
          runInfo(record.stamp, {
            command: 'flags',
            paths: options.paths,
            scenarios: scenarios.all,
            pricingFile: options.pricingFile ?? null,
            prices,
            thresholds,
            withText: false,
          }),
        );
  let issues: readonly IngestIssue[];
  try {
    issues = await forEachSession(
      options.paths,
      { content: 'text' },
      async (session) => {
        options.progress?.increment();
        const replayed = replayWithPrices(session, scenarios.all, prices);
        if (replayed === null) {
          skipped.push(session.id);
          await sink?.add(session, null, []);
          return;
        }
        const { simulation, modelFacts } = replayed;
        const found = detectSessionFlags(simulation, {
          prices,
          modelFacts,
          thresholds,
          baseline: scenarios.baseline,
          examined: scenarios.examined,
        });
        flags.push(...found);
        await sink?.add(session, simulation, found);
        sessions += 1;
      },
      (total) => options.progress?.start(total),
    );
  } catch (error) {
    sink?.abandon();
    throw error;
  }
  if (sink !== null && record !== null) await sink.close(issues, { outDir: null, dbPath: record.dbPath });
  const report = buildFlagsReport({
    flags,
    scenarios: ['recorded', ...scenarios.examined],
    baseline: scenarios.baseline.name,
    thresholds,
    sessions,
    // Notes (requests without usage, resumed copies, fork replays) are not problems with the input.
    ingestIssues: issues.filter((issue) => !isIngestNote(issue)).length,
  });
  return { report, flags, skipped, issues };
}

/**
 * The flags many machines exported (`flags --from`), with the scenarios, thresholds and session
 * count their runs recorded, as the same report `flagSessions` builds from logs.
 */
export async function flagExports(options: {
  readonly from: string;
  readonly pricingFile?: string | null;
}): Promise<FlagSessionsOutcome & { readonly notices: readonly string[] }> {
  const [{ CostDb }, { openBill }, { loadFleet }, { fleetFlags }] = await Promise.all([
    import('../cost/db.js'),
    import('../cost/bill.js'),
    import('../cost/fleet/read-fleet.js'),
    import('./fleet-flags.js'),
  ]);
  const db = await CostDb.open({ prices: await resolvePrices(options.pricingFile), path: null });
  try {
    await openBill(db);
    await loadFleet(db, options.from);
    const read = await fleetFlags(db);
    const report = buildFlagsReport({
      flags: read.flags,
      scenarios: read.scenarios,
      baseline: BASELINE_SCENARIO.name,
      thresholds: read.thresholds,
      sessions: read.sessions,
      ingestIssues: 0,
    });
    return { report, flags: read.flags, skipped: [], issues: [], notices: read.notices };
  } finally {
    db.close();
  }
}
