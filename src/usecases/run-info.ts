/**
 * What a run records about itself in the `runs` table. The CLI reads the clock and the host name
 * and makes the run id (a `RunStamp`); the use case adds what it ran (`RunInfo`). Everything here
 * takes them as values, so the same input gives the same rows.
 */
import { resolve } from 'node:path';
import type { FleetRunRow } from '../cost/fleet/recorder.js';
import type { PriceTable } from '../cost/price-table.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import { CachecostError } from '../session/errors.js';
import type { Scenario } from '../simulate/scenario.js';

export const RUN_COMMANDS = ['export', 'report', 'simulate', 'flags', 'tune'] as const;
export type RunCommand = (typeof RUN_COMMANDS)[number];

/** Who and when: given by the caller (the CLI reads the clock and the host name). */
export type RunStamp = {
  readonly runId: string;
  /** The machine's name or `--host` label: a Hive partition value, so a safe path segment (`checkHostLabel`). */
  readonly host: string;
  readonly cachecostVersion: string;
  readonly startedAtMs: number;
};

/** Where a run's rows go besides the report: a DuckDB file that keeps every run. */
export type RecordTo = { readonly stamp: RunStamp; readonly dbPath: string };

export type RunInfo = RunStamp & {
  readonly command: RunCommand;
  /** Log paths read, absolute. */
  readonly inputs: readonly string[];
  readonly scenarios: readonly Scenario[];
  readonly pricingFile: string | null;
  readonly prices: PriceTable;
  /** Flag thresholds in force, when the run computed flags. */
  readonly thresholds: FlagThresholds | null;
  readonly withText: boolean;
};

// A label becomes a directory name (`host=<label>`) on every machine of the fleet and a value
// other engines parse from the path: letters, digits and `._-` only, which no engine escapes.
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A host label fit for a partition path; anything else is `BAD_ARGUMENT` naming the option. */
export function checkHostLabel(label: string, option: string): string {
  if (LABEL.test(label)) return label;
  throw new CachecostError(
    'BAD_ARGUMENT',
    `${option} must be 1-128 letters, digits, '.', '_' or '-' (starting with a letter or digit); got "${label}"`,
  );
}

/** A run id fit for a file name (`run-<id>.parquet`). */
export function checkRunId(id: string): string {
  if (LABEL.test(id)) return id;
  throw new CachecostError('BAD_ARGUMENT', `--run-id must be 1-128 letters, digits, '.', '_' or '-'; got "${id}"`);
}

/** The run a use case records: the caller's stamp and what the use case ran. */
export function runInfo(
  stamp: RunStamp,
  facts: Omit<RunInfo, keyof RunStamp | 'inputs'> & { readonly paths: readonly string[] },
): RunInfo {
  const { paths, ...rest } = facts;
  return { ...stamp, ...rest, inputs: paths.map((path) => resolve(path)) };
}

/** The latest source date among the prices, the table's "as of" date; null for an empty table. */
export function priceTableDate(prices: PriceTable): string | null {
  let latest: string | null = null;
  for (const price of prices.prices) if (latest === null || price.date > latest) latest = price.date;
  return latest;
}

/** The run as the `runs` table holds it. */
export function fleetRunRow(run: RunInfo): FleetRunRow {
  return {
    runId: run.runId,
    host: run.host,
    command: run.command,
    cachecostVersion: run.cachecostVersion,
    priceTableDate: priceTableDate(run.prices),
    pricingFile: run.pricingFile,
    inputs: run.inputs,
    scenariosJson: JSON.stringify(run.scenarios.map((s) => ({ name: s.name, family: s.family, params: s.params }))),
    thresholdsJson: run.thresholds === null ? null : JSON.stringify(run.thresholds),
    withText: run.withText,
    startedAtMs: run.startedAtMs,
  };
}
