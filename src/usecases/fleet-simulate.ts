/**
 * `simulate --from`: the savings summary of many machines' exports. An export holds the scenarios
 * its machine replayed (`runs.scenarios_json`); this module chooses which of them the summary
 * shows, keeps only the replayed sessions' rows of those scenarios, fills the replay tables the
 * report views read (`compactions`, `sessions`, `scenarios`) with `sql/fleet_replays.sql`, and
 * reads back what the report prints of each session beyond its rows.
 */
import type { CostDb } from '../cost/db.js';
import { readSqlFile } from '../cost/db.js';
import { doubleOrNull, intOf, stringOf, stringOrNull } from '../cost/duck-values.js';
import type { FleetColumns } from '../cost/fleet/read-fleet.js';
import { BASELINE_SCENARIO } from '../detect/detect-session.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import type { SessionFacts } from '../report/simulate-report.js';
import type { SessionMeta } from '../report/simulate-details.js';
import { CachecostError } from '../session/errors.js';
import type { Scenario } from '../simulate/scenario.js';
import { ScenarioSchema } from '../simulate/scenario-schema.js';
import { scenarioRows } from '../simulate/to-rows.js';

/** A run that replayed sessions, with the scenarios it replayed. */
type ReplayingRun = {
  readonly host: string;
  readonly runId: string;
  readonly scenarios: readonly Scenario[];
  readonly thresholdsJson: string | null;
};

export type FleetSelection = {
  /** The scenarios the summary shows, in order (`recorded` first). */
  readonly scenarios: readonly Scenario[];
  /** Whether the flags column is shown: only beside the flags' comparison scenario, as over logs. */
  readonly flags: boolean;
  readonly notices: readonly string[];
};

/** JSON with object keys sorted, so that two parameter sets compare by value, not by key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

function sameScenario(a: Scenario, b: Scenario): boolean {
  return a.name === b.name && canonical(a.params) === canonical(b.params);
}

function scenariosOf(text: string, host: string, runId: string): Scenario[] {
  const bad = (why: string): never => {
    throw new CachecostError('BAD_ARGUMENT', `--from: runs.scenarios_json of host ${host} (run ${runId}) ${why}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return bad('is not JSON');
  }
  if (!Array.isArray(parsed)) return bad('is not a JSON array');
  return parsed.map((entry: unknown) => {
    const scenario = ScenarioSchema.safeParse(entry);
    return scenario.success
      ? scenario.data
      : bad(`holds a scenario this cachecost does not know (${scenario.error.issues[0]?.message ?? 'invalid'})`);
  });
}

/** The hosts (with run ids) among `runs`, for messages. */
function named(runs: readonly ReplayingRun[]): string {
  return runs.map((run) => `${run.host} (run ${run.runId})`).join(', ');
}

/**
 * Chooses the scenarios to show (`asked`, every one of which every replaying export must hold
 * with the same parameters; null = those all of them hold), writes them to `scenarios`, and
 * deletes the rows the summary does not read: sessions that were not replayed and scenarios not
 * shown. Runs on the loaded `fleet` tables, before they are mapped onto the report views.
 */
export async function selectExportedScenarios(
  db: CostDb,
  columns: FleetColumns,
  asked: readonly Scenario[] | null,
): Promise<FleetSelection> {
  const runs: ReplayingRun[] = (
    await db.query(`
      SELECT host, run_id, scenarios_json, thresholds_json FROM fleet.runs
      WHERE run_id IN (SELECT run_id FROM fleet.sessions WHERE replayed)
      ORDER BY started_at, run_id`)
  ).map((row) => {
    const host = stringOf(row, 'host');
    const runId = stringOf(row, 'run_id');
    return {
      host,
      runId,
      scenarios: scenariosOf(stringOf(row, 'scenarios_json'), host, runId),
      thresholdsJson: stringOrNull(row, 'thresholds_json'),
    };
  });
  const [first] = runs;
  if (first === undefined) {
    throw new CachecostError(
      'BAD_ARGUMENT',
      '--from: no exported session was replayed, so there are no savings to show; export with --target or --scenario (the scenarios to compare) and read those exports',
    );
  }
  const needed: [string, string][] = [
    ['requests', 'modelled'],
    ['sessions', 'model'],
    ['sessions', 'recorded_policy'],
    ['sessions', 'chars_per_token'],
    ['sessions', 'static_block_tokens'],
    ['replays', 'failed_turns'],
  ];
  const lacking = needed.filter(([table, column]) => !columns.has(table as never, column));
  if (lacking.length > 0) {
    throw new CachecostError(
      'BAD_ARGUMENT',
      `--from: these exports lack what simulate reads (${lacking.map(([t, c]) => `${t}.${c}`).join(', ')}): they were written by an older cachecost; export the logs again`,
    );
  }
  const notices: string[] = [];
  let scenarios: readonly Scenario[];
  if (asked !== null) {
    for (const scenario of asked) {
      const holders = runs.filter((run) => run.scenarios.some((s) => s.name === scenario.name));
      if (holders.length === 0) {
        const exported = [...new Set(runs.flatMap((run) => run.scenarios.map((s) => s.name)))];
        throw new CachecostError(
          'BAD_ARGUMENT',
          `--from: no export replayed scenario ${scenario.name} (they hold ${exported.join(', ')}); scenarios are replayed at export time: export with the same --target/--scenario options, or leave them out here to show every exported scenario`,
        );
      }
      const other = holders.filter((run) => !run.scenarios.some((s) => sameScenario(s, scenario)));
      if (other.length > 0) {
        throw new CachecostError(
          'BAD_ARGUMENT',
          `--from: scenario ${scenario.name} was exported with other parameters by ${named(other)}; pass the engine options the export was made with`,
        );
      }
      const missing = runs.filter((run) => !holders.includes(run));
      if (missing.length > 0) {
        throw new CachecostError(
          'BAD_ARGUMENT',
          `--from: scenario ${scenario.name} is not in the export of ${named(missing)}; export those logs again with it, or choose scenarios every export holds`,
        );
      }
    }
    scenarios = asked;
  } else {
    scenarios = first.scenarios.filter((scenario) =>
      runs.every((run) => run.scenarios.some((s) => sameScenario(s, scenario))),
    );
    const left = [...new Set(runs.flatMap((run) => run.scenarios.map((s) => s.name)))].filter(
      (name) => !scenarios.some((s) => s.name === name),
    );
    // Every saving is against `recorded`: without one replayed alike everywhere there is none to show.
    if (!scenarios.some((scenario) => scenario.family === 'recorded')) {
      throw new CachecostError(
        'BAD_ARGUMENT',
        `--from: the exports replayed the recorded policy with different parameters (${named(runs)}); pass the --ttl they were made with to choose one`,
      );
    }
    if (left.length > 0)
      notices.push(
        `scenario(s) ${left.join(', ')} left out: not replayed alike by every export (a saving over part of the sessions would mislead)`,
      );
  }
  const flags = scenarios.some((scenario) => sameScenario(scenario, BASELINE_SCENARIO));
  if (flags) {
    const defaults = JSON.stringify(DEFAULT_THRESHOLDS);
    const other = runs.filter((run) => run.thresholdsJson !== null && run.thresholdsJson !== defaults);
    if (other.length > 0)
      notices.push(`the flags of ${named(other)} were raised with other thresholds than the defaults`);
  }
  const bare = (
    await db.query(`
      SELECT host, count(*) AS sessions FROM fleet.sessions
      WHERE run_id NOT IN (SELECT run_id FROM fleet.sessions WHERE replayed) AND NOT totals_only
      GROUP BY host ORDER BY host`)
  ).map((row) => `${stringOf(row, 'host')} (${intOf(row, 'sessions')} sessions)`);
  if (bare.length > 0)
    notices.push(
      `left out: exports that replayed nothing (the bill only) from ${bare.join(', ')}; export them with --target or --scenario`,
    );
  await db.insertScenarios(scenarioRows(scenarios));
  const shown = '(SELECT name FROM scenarios)';
  const notReplayed = (table: string): string =>
    `NOT EXISTS (SELECT 1 FROM fleet.sessions s WHERE s.replayed AND s.host = ${table}.host AND s.session_id = ${table}.session_id)`;
  await db.query(
    `DELETE FROM fleet.requests WHERE ${notReplayed('requests')} OR (scenario <> 'measured' AND scenario NOT IN ${shown})`,
  );
  for (const table of ['compactions', 'replays'])
    await db.query(`DELETE FROM fleet.${table} WHERE ${notReplayed(table)} OR scenario NOT IN ${shown}`);
  return { scenarios, flags, notices };
}

/** Fills `compactions` and `sessions` from the exports (after `fleet_read.sql` keyed the sessions). */
export async function fillReplays(db: CostDb, selection: FleetSelection): Promise<void> {
  await db.query(await readSqlFile('fleet_replays'));
  // Over logs the flags column is filled only beside the flags' comparison scenario.
  if (!selection.flags) await db.query('UPDATE sessions SET flags = []::VARCHAR[]');
}

/** Each replayed session's facts and metadata, by host, then in time order. */
export async function exportedSessions(db: CostDb): Promise<{ facts: SessionFacts[]; meta: SessionMeta[] }> {
  const rows = await db.query(`
    SELECT coalesce(k.key, s.session_id) AS session_id, s.project, s.model, s.recorded_policy, s.chars_per_token,
           s.static_block_tokens, s.fidelity_note, t.started_ms
    FROM fleet.sessions s
    LEFT JOIN fleet_keys k ON k.host = s.host AND k.session_id = s.session_id
    -- As over logs: the first request's time (every request has a row under recorded).
    LEFT JOIN (SELECT host, session_id, epoch_ms(min(timestamp)) AS started_ms FROM fleet.requests GROUP BY ALL) t
      ON t.host = s.host AND t.session_id = s.session_id
    WHERE s.replayed
    ORDER BY s.host, s.first_timestamp NULLS LAST, s.session_id`);
  const facts: SessionFacts[] = [];
  const meta: SessionMeta[] = [];
  for (const row of rows) {
    const sessionId = stringOf(row, 'session_id');
    const charsPerToken = doubleOrNull(row, 'chars_per_token');
    const model = stringOrNull(row, 'model');
    const policy = stringOrNull(row, 'recorded_policy');
    if (charsPerToken === null || model === null || policy === null)
      throw new CachecostError('BAD_ARGUMENT', `--from: replayed session ${sessionId} has no replay facts in sessions`);
    facts.push({
      sessionId,
      model,
      recordedPolicy: policy,
      charsPerToken,
      staticBlockTokens: intOf(row, 'static_block_tokens'),
      fidelityNote: stringOrNull(row, 'fidelity_note'),
    });
    const started = row['started_ms'];
    meta.push({
      sessionId,
      project: stringOrNull(row, 'project'),
      startedAtMs: started === null || started === undefined ? null : Number(started),
    });
  }
  return { facts, meta };
}

/** Sessions the replaying runs read but could not replay (no per-request data), by key. */
export async function unreplayedSessions(db: CostDb): Promise<string[]> {
  return (
    await db.query(`
      SELECT s.session_id || CASE WHEN count(*) OVER (PARTITION BY s.session_id) > 1 THEN '@' || s.host ELSE '' END AS id
      FROM fleet.sessions s
      WHERE NOT s.replayed AND s.run_id IN (SELECT run_id FROM fleet.sessions WHERE replayed)
      ORDER BY s.host, s.first_timestamp NULLS LAST, s.session_id`)
  ).map((row) => stringOf(row, 'id'));
}
