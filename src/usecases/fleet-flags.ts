/**
 * `flags --from`: the flags many machines exported, read back as `Flag` values for the flags
 * report, with what the report states beside them (the scenarios examined, the thresholds, the
 * sessions examined) taken from the exports' `runs` and `sessions` tables.
 */
import type { CostDb } from '../cost/db.js';
import { intOf, picoOrNull, stringOf, stringOrNull } from '../cost/duck-values.js';
import type { Flag, FlagBasis, FlagKind, Severity, Stake } from '../detect/flag.js';
import { FLAG_KINDS, SEVERITIES } from '../detect/flag.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import { resolveThresholds } from '../detect/thresholds-schema.js';
import { CachecostError } from '../session/errors.js';

export type FleetFlags = {
  readonly flags: readonly Flag[];
  /** `recorded`, then every other scenario the exporting runs replayed, in order of first appearance. */
  readonly scenarios: readonly string[];
  readonly thresholds: FlagThresholds;
  /** Sessions the runs replayed (the ones examined). */
  readonly sessions: number;
  /** Notes for stderr (e.g. runs that used different thresholds). */
  readonly notices: readonly string[];
};

function oneOf<T extends string>(value: string, allowed: readonly T[], column: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CachecostError('BAD_ARGUMENT', `--from: flags.${column} has an unknown value "${value}"`);
}

function stakeOf(row: Record<string, unknown>): Stake {
  const kind = stringOf(row, 'stake');
  const against = stringOrNull(row, 'stake_against') ?? '';
  if (kind === 'priced') {
    const picoUsd = picoOrNull(row, 'stake_pusd');
    if (picoUsd === null) throw new CachecostError('BAD_ARGUMENT', '--from: a priced flag has no stake_usd');
    return { kind, picoUsd, against };
  }
  if (kind === 'unpriced') return { kind, against };
  if (kind === 'none') return { kind, reason: stringOrNull(row, 'stake_reason') ?? '' };
  throw new CachecostError('BAD_ARGUMENT', `--from: flags.stake has an unknown value "${kind}"`);
}

function evidenceOf(text: string): Record<string, number | null> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CachecostError('BAD_ARGUMENT', '--from: flags.evidence_json is not a JSON object');
  const out: Record<string, number | null> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== null && typeof value !== 'number')
      throw new CachecostError('BAD_ARGUMENT', `--from: flags.evidence_json.${key} is not a number`);
    out[key] = value;
  }
  return out;
}

/** The flags of exports already loaded into `db` by `loadFleet`. */
export async function fleetFlags(db: CostDb): Promise<FleetFlags> {
  const rows = await db.query(`
    SELECT coalesce(k.key, f.session_id) AS session_id, f.scenario, f.kind, f.severity, f.basis,
           f.first_request_index, f.last_request_index, f.evidence_json, f.summary, f.stake,
           usd_to_pusd(f.stake_usd) AS stake_pusd, f.stake_against, f.stake_reason
    FROM fleet.flags f
    LEFT JOIN fleet_keys k ON k.host = f.host AND k.session_id = f.session_id
    ORDER BY f.host, f.session_id, f.scenario, f.kind, f.first_request_index`);
  const flags: Flag[] = rows.map((row) => ({
    kind: oneOf<FlagKind>(stringOf(row, 'kind'), FLAG_KINDS, 'kind'),
    severity: oneOf<Severity>(stringOf(row, 'severity'), SEVERITIES, 'severity'),
    sessionId: stringOf(row, 'session_id'),
    scenario: stringOf(row, 'scenario'),
    basis: oneOf<FlagBasis>(stringOf(row, 'basis'), ['measured', 'simulated'], 'basis'),
    requests: { first: intOf(row, 'first_request_index'), last: intOf(row, 'last_request_index') },
    evidence: evidenceOf(stringOf(row, 'evidence_json')),
    summary: stringOf(row, 'summary'),
    stake: stakeOf(row),
  }));
  // The runs that wrote the loaded sessions: what they replayed and with which thresholds.
  const runs = await db.query(`
    SELECT scenarios_json, thresholds_json FROM fleet.runs
    WHERE run_id IN (SELECT run_id FROM fleet.sessions WHERE replayed)
    ORDER BY started_at, run_id`);
  const scenarios = ['recorded'];
  const thresholdTexts = new Set<string>();
  for (const run of runs) {
    const listed: unknown = JSON.parse(stringOf(run, 'scenarios_json'));
    if (Array.isArray(listed)) {
      for (const entry of listed as unknown[]) {
        const name =
          typeof entry === 'object' && entry !== null && 'name' in entry && typeof entry.name === 'string'
            ? entry.name
            : null;
        if (name !== null && !scenarios.includes(name)) scenarios.push(name);
      }
    }
    const thresholds = stringOrNull(run, 'thresholds_json');
    if (thresholds !== null) thresholdTexts.add(thresholds);
  }
  for (const flag of flags) if (!scenarios.includes(flag.scenario)) scenarios.push(flag.scenario);
  const [first] = thresholdTexts;
  const resolved = resolveThresholds(first === undefined ? [] : [JSON.parse(first) as unknown]);
  if (!resolved.ok)
    throw new CachecostError('BAD_ARGUMENT', `--from: the exported thresholds do not parse: ${resolved.error}`);
  const notices: string[] = [];
  if (thresholdTexts.size > 1)
    notices.push(
      `the exports were flagged with ${thresholdTexts.size} different threshold sets; the report shows the first`,
    );
  if (runs.length === 0)
    notices.push('no exported session was replayed, so no flags were computed (export with --flags or --target)');
  const [count] = await db.query('SELECT count(*) AS n FROM fleet.sessions WHERE replayed');
  return {
    flags,
    scenarios,
    thresholds: resolved.thresholds,
    sessions: count === undefined ? 0 : intOf(count, 'n'),
    notices,
  };
}
