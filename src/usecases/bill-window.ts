/**
 * The days a bill covers, as typed (`--since`, `--until`: inclusive UTC dates). A module of its
 * own so that the CLI checks the dates before loading anything heavy.
 */
import type { BillWindow } from '../cost/bill.js';
import { CachecostError } from '../session/errors.js';

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` date as the UTC epoch ms of its midnight; anything else is `BAD_ARGUMENT`. */
export function parseUtcDate(raw: string, option: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  if (match !== null) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const ms = Date.UTC(year, month - 1, day);
    const back = new Date(ms);
    // Date.UTC rolls 2026-02-30 over to March: a date that does not round-trip does not exist.
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) return ms;
  }
  throw new CachecostError('BAD_ARGUMENT', `--${option} expects a date as YYYY-MM-DD (UTC), got "${raw}"`);
}

/** The half-open window `[since 00:00Z, until + 1 day 00:00Z)` of inclusive UTC dates. */
export function billWindow(since: string | undefined, until: string | undefined): BillWindow {
  const sinceMs = since === undefined ? null : parseUtcDate(since, 'since');
  const untilMs = until === undefined ? null : parseUtcDate(until, 'until') + DAY_MS;
  if (sinceMs !== null && untilMs !== null && sinceMs >= untilMs) {
    throw new CachecostError('BAD_ARGUMENT', `--since ${since ?? ''} is after --until ${until ?? ''}`);
  }
  return { sinceMs, untilMs };
}
