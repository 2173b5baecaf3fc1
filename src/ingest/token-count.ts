/**
 * The one check of a token count read from a log, shared by every adapter before any arithmetic:
 * a count is a safe non-negative integer no larger than any single provider request can be.
 * Anything else (a string, a float, a negative, `1e308`, a value above 2^53) would otherwise reach
 * BigInt conversion and DuckDB's int64 columns as garbage or a crash, so it is rejected and the
 * request is counted as "usage invalid" instead of being priced (pricing.md: never a silent $0).
 */

/**
 * The largest token count one request can plausibly report. The largest context windows are a
 * few million tokens; 100M leaves a wide margin while keeping every sum of a session's counts
 * far inside 2^53 and int64.
 */
export const MAX_TOKENS_PER_REQUEST = 100_000_000;

/** Prefix of every ingest issue raised by an invalid count (the request is kept without usage). */
export const USAGE_INVALID = 'usage invalid';

export type TokenCountCheck =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly reason: string };

/** A short, one-line description of an arbitrary log value for an issue (never recursive, never long). */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string': {
      const quoted = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
      return `the string ${quoted}`;
    }
    case 'number':
      return String(value);
    default:
      return typeof value;
  }
}

/** Whether `value` is a token count (the rule `checkTokenCount` explains when it is not). */
export function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_REQUEST;
}

/** Checks one count; `name` is the field as the issue should name it. */
export function checkTokenCount(name: string, value: unknown): TokenCountCheck {
  if (isTokenCount(value)) return { ok: true, value };
  if (typeof value !== 'number') return { ok: false, reason: `${name} is not a token count (${describeValue(value)})` };
  if (!Number.isSafeInteger(value) || value < 0)
    return { ok: false, reason: `${name} is not a token count (${describeValue(value)})` };
  if (value > MAX_TOKENS_PER_REQUEST) {
    return {
      ok: false,
      reason: `${name} ${value} is above ${MAX_TOKENS_PER_REQUEST} tokens, more than any one request can hold`,
    };
  }
  return { ok: true, value };
}

/** True when `value` is absent or a valid count: the adapters' guard before adding counts together. */
export function isTokenCountOrAbsent(value: unknown): boolean {
  return value === undefined || value === null || isTokenCount(value);
}
