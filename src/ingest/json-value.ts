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
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
