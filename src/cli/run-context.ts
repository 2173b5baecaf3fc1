/**
 * The facts of a run that only the CLI may read — the clock, the host name, a fresh run id, the
 * package version — gathered here and handed to the use cases as values (`RunInfo`).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { PriceTable } from '../cost/price-table.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import type { RunCommand, RunInfo } from '../export/run-info.js';
import { checkHostLabel, checkRunId } from '../export/run-info.js';
import { CachecostError } from '../session/errors.js';
import type { Scenario } from '../simulate/scenario.js';
import { packageVersion } from './version.js';

export type RunArgs = { readonly host: string | undefined; readonly runId: string | undefined; readonly startedAt: string | undefined };

/** `--host`, else the OS host name (which must then fit a partition path, or `--host` is asked for). */
export function hostLabel(host: string | undefined): string {
  if (host !== undefined) return checkHostLabel(host, '--host');
  const name = hostname();
  try {
    return checkHostLabel(name, 'the host name');
  } catch (error) {
    if (error instanceof CachecostError) throw new CachecostError('BAD_ARGUMENT', `${error.message}; name this machine with --host`);
    throw error;
  }
}

function startedAtMs(raw: string | undefined): number {
  if (raw === undefined) return Date.now();
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw new CachecostError('BAD_ARGUMENT', `--started-at expects an ISO 8601 time, got "${raw}"`);
  return ms;
}

export function runInfo(
  command: RunCommand,
  args: RunArgs,
  facts: {
    readonly paths: readonly string[];
    readonly scenarios: readonly Scenario[];
    readonly pricingFile: string | null;
    readonly prices: PriceTable;
    readonly thresholds: FlagThresholds | null;
    readonly withText: boolean;
  },
): RunInfo {
  return {
    runId: args.runId === undefined ? randomUUID() : checkRunId(args.runId),
    host: hostLabel(args.host),
    command,
    cachecostVersion: packageVersion(),
    startedAtMs: startedAtMs(args.startedAt),
    inputs: facts.paths.map((path) => resolve(path)),
    scenarios: facts.scenarios,
    pricingFile: facts.pricingFile,
    prices: facts.prices,
    thresholds: facts.thresholds,
    withText: facts.withText,
  };
}
