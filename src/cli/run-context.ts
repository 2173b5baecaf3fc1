/**
 * The facts of a run that only the CLI may read — the clock, the host name, a fresh run id, the
 * package version — gathered into a `RunStamp` and handed to the use cases as values.
 */
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { CachecostError } from '../session/errors.js';
import type { RunStamp } from '../usecases/run-info.js';
import { checkHostLabel, checkRunId } from '../usecases/run-info.js';
import { packageVersion } from './version.js';

export type RunArgs = {
  readonly host: string | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
};

/** `--host`, else the OS host name (which must then fit a partition path, or `--host` is asked for). */
export function hostLabel(host: string | undefined): string {
  if (host !== undefined) return checkHostLabel(host, '--host');
  try {
    return checkHostLabel(hostname(), 'the host name');
  } catch (error) {
    if (error instanceof CachecostError)
      throw new CachecostError('BAD_ARGUMENT', `${error.message}; name this machine with --host`);
    throw error;
  }
}

function startedAtMs(raw: string | undefined): number {
  if (raw === undefined) return Date.now();
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms))
    throw new CachecostError('BAD_ARGUMENT', `--started-at expects an ISO 8601 time, got "${raw}"`);
  return ms;
}

/** A fresh v4 UUID; `node:crypto` is loaded only here (a run that records nothing never loads it, ~7 ms). */
function randomUuid(): string {
  return (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).randomUUID();
}

/** Who and when this run is: `--run-id` or a random UUID, `--host` or the host name, the clock. */
export function runStamp(args: RunArgs): RunStamp {
  return {
    runId: args.runId === undefined ? randomUuid() : checkRunId(args.runId),
    host: hostLabel(args.host),
    cachecostVersion: packageVersion(),
    startedAtMs: startedAtMs(args.startedAt),
  };
}
