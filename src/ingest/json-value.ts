/**
 * Reading fields of parsed JSON whose shape no vendor publishes: each accessor returns the value
 * when it has the expected type and undefined otherwise, so an adapter checks what it reads and
 * ignores the rest (formats change between releases; unknown fields are never an error).
 */

export type JsonObject = { readonly [key: string]: unknown };

/** The value as an object (not an array), or undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  // Boundary: a non-null, non-array object from JSON.parse is a string-keyed record.
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** The value as an array, or undefined. */
export function asArray(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** The value as a string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value as a finite number, or undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The range of a JavaScript Date (±100,000,000 days): a timestamp beyond it is no time at all. */
export const MAX_TIMESTAMP_MS = 8.64e15;

/** A number as a whole-millisecond timestamp (stored as BIGINT), or null when it is outside any date. */
export function timestampMsOfNumber(value: number): number | null {
  return Number.isFinite(value) && Math.abs(value) <= MAX_TIMESTAMP_MS ? Math.trunc(value) : null;
}

/** Milliseconds since the epoch of an ISO-8601 string (or a number already in ms); null when absent, unparseable or out of range. */
export function timestampMsOf(value: unknown): number | null {
  if (typeof value === 'number') return timestampMsOfNumber(value);
  if (typeof value !== 'string') return null;
  const ms = utcMillisecondsOf(value) ?? Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** The digits `text[from, to)` as a number; -1 when one of them is not an ASCII digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k += 1) {
    const d = text.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `Date.parse` of the one form every log line repeats, `2025-07-16T19:58:34.347Z`, without the
 * general parser (which cost as much as the rest of a record). Undefined for anything else, and
 * for field values where `Date.parse` has its own rules (a month or time out of range is NaN, a
 * day past the month's end rolls over, a two-digit year is not 19xx): days past the 28th, years
 * before 1970 and every other form are left to `Date.parse`. Days are counted without `Date.UTC`
 * (itself a measurable part of the cost).
 */
function utcMillisecondsOf(text: string): number | undefined {
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== 0x2d ||
    text.charCodeAt(7) !== 0x2d ||
    text.charCodeAt(10) !== 0x54 ||
    text.charCodeAt(13) !== 0x3a ||
    text.charCodeAt(16) !== 0x3a ||
    text.charCodeAt(19) !== 0x2e ||
    text.charCodeAt(23) !== 0x5a
  ) {
    return undefined;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  const millisecond = digitsAt(text, 20, 23);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 28) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || millisecond < 0) {
    return undefined;
  }
  // Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse, eras of 400 years).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const days = era * 146_097 + dayOfEra - 719_468;
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond;
}
