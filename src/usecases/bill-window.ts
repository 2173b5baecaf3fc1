/**
 * The days a bill covers, as typed (`--since`, `--until`: inclusive dates, `YYYY-MM-DD` or
 * `YYYYMMDD`, in the bill's IANA time zone). A module of its own so that the CLI checks the dates
 * and the zone before loading anything heavy.
 */
import type { BillWindow } from '../cost/bill.js';
import { CachecostError } from '../session/errors.js';

/** A date as typed, `YYYY-MM-DD` or `YYYYMMDD`, as `[year, month, day]`; anything else is `BAD_ARGUMENT`. */
export function parseDate(raw: string, option: string): readonly [number, number, number] {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(raw.trim());
  if (match !== null && (raw.trim().length === 8 || raw.trim().length === 10)) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const back = new Date(Date.UTC(year, month - 1, day));
    // Date.UTC rolls 2026-02-30 over to March: a date that does not round-trip does not exist.
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day)
      return [year, month, day];
  }
  throw new CachecostError('BAD_ARGUMENT', `--${option} expects a date as YYYY-MM-DD or YYYYMMDD, got "${raw}"`);
}

/** A `YYYY-MM-DD` (or `YYYYMMDD`) date as the UTC epoch ms of its midnight. */
export function parseUtcDate(raw: string, option: string): number {
  const [year, month, day] = parseDate(raw, option);
  return Date.UTC(year, month - 1, day);
}

/** The zone's offset from UTC at `ms`, in ms (local wall time minus UTC). */
function zoneOffsetMs(timeZone: string, ms: number): number {
  // UTC has no offset; the first `Intl.DateTimeFormat` of a process costs ~20 ms (ICU zone data).
  if (timeZone === 'UTC') return 0;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The UTC epoch ms at which the date `[y, m, d]` begins in `timeZone` (two passes settle a DST change). */
export function zonedMidnightMs(date: readonly [number, number, number], timeZone: string): number {
  const wall = Date.UTC(date[0], date[1] - 1, date[2]);
  let ms = wall - zoneOffsetMs(timeZone, wall);
  ms = wall - zoneOffsetMs(timeZone, ms);
  return ms;
}

/** An IANA time zone name as typed, checked; anything unknown is `BAD_ARGUMENT`. */
export function checkTimeZone(raw: string): string {
  // The default zone, answered as Intl answers it without paying for Intl's first zone lookup (~20 ms).
  if (raw === 'UTC') return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new CachecostError(
      'BAD_ARGUMENT',
      `--timezone expects an IANA time zone such as UTC or Europe/Paris, got "${raw}"`,
    );
  }
}

/** The half-open window `[since 00:00, until + 1 day 00:00)` of inclusive dates in `timeZone`, as UTC ms. */
export function billWindow(since: string | undefined, until: string | undefined, timeZone = 'UTC'): BillWindow {
  const sinceMs = since === undefined ? null : zonedMidnightMs(parseDate(since, 'since'), timeZone);
  let untilMs: number | null = null;
  if (until !== undefined) {
    const [y, m, d] = parseDate(until, 'until');
    const next = new Date(Date.UTC(y, m - 1, d + 1));
    untilMs = zonedMidnightMs([next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()], timeZone);
  }
  if (sinceMs !== null && untilMs !== null && sinceMs >= untilMs) {
    throw new CachecostError('BAD_ARGUMENT', `--since ${since ?? ''} is after --until ${until ?? ''}`);
  }
  return { sinceMs, untilMs };
}

/** `2026-01-02` for a typed date, so the report echoes one spelling. */
export function isoDate(raw: string | undefined, option: string): string | null {
  if (raw === undefined) return null;
  const [y, m, d] = parseDate(raw, option);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
