/**
 * What a run records about itself in the `runs` table. The CLI reads the clock, the host name and
 * makes the run id; everything below takes them as values, so the same input gives the same rows.
 */
import type { PriceTable } from '../cost/price-table.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import { CachecostError } from '../session/errors.js';
import type { Scenario } from '../simulate/scenario.js';

export const RUN_COMMANDS = ['export', 'report', 'simulate', 'flags', 'tune'] as const;
export type RunCommand = (typeof RUN_COMMANDS)[number];

export type RunInfo = {
  readonly runId: string;
  /** The machine's name or `--host` label: a Hive partition value, so a safe path segment. */
  readonly host: string;
  readonly command: RunCommand;
  readonly cachecostVersion: string;
  readonly startedAtMs: number;
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
  throw new CachecostError('BAD_ARGUMENT', `${option} must be 1-128 letters, digits, '.', '_' or '-' (starting with a letter or digit); got "${label}"`);
}

/** A run id fit for a file name (`run-<id>.parquet`). */
export function checkRunId(id: string): string {
  if (LABEL.test(id)) return id;
  throw new CachecostError('BAD_ARGUMENT', `a run id must be 1-128 letters, digits, '.', '_' or '-'; got "${id}"`);
}

/** The latest source date among the prices, the table's "as of" date; null for an empty table. */
export function priceTableDate(prices: PriceTable): string | null {
  let latest: string | null = null;
  for (const price of prices.prices) if (latest === null || price.date > latest) latest = price.date;
  return latest;
}
