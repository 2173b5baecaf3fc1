/**
 * The one count formatter for people, through `Intl.NumberFormat`: exact counts with thousands
 * separators (requests, sessions, compactions: `1,360`), token amounts compact with three
 * significant digits (`48.1M`, `270K`, `1.23K`; below 1,000 exact; `compact-number.ts`, whose
 * units stop at B so a sum of tokens never reads as T), percentages with one decimal
 * and never `-0.0%`. JSON and CSV carry exact integers, never these strings.
 */

import { formatCompactCount } from './compact-number.js';

// Built on first use, not at import: the first `Intl.NumberFormat` of a process costs several ms
// (ICU data), which commands that print JSON or CSV never need.
let exact: Intl.NumberFormat | null = null;
function exactFormat(): Intl.NumberFormat {
  exact ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return exact;
}

/** An exact count: `1,360`. */
export function formatCount(value: number): string {
  return exactFormat().format(value);
}

/** A token amount: compact above 999 (`1.23K`, `48.1M`, `5.10B`), exact below. */
export function formatTokens(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) < 1000) return exactFormat().format(Math.round(value));
  return formatCompactCount(value);
}

/** A token amount with its unit, for sentences: `1.93M tokens`, `1 token`. */
export function formatTokensWithUnit(value: number): string {
  return `${formatTokens(value)} ${value === 1 ? 'token' : 'tokens'}`;
}

export type PctFormatOptions = { readonly digits?: number; readonly signed?: boolean };

/** `12.3%`, `+12.3%` (signed), `-` for null; a value that rounds to zero is `0.0%`. */
export function formatPct(value: number | null, options: PctFormatOptions = {}): string {
  if (value === null || !Number.isFinite(value)) return '-';
  const digits = options.digits ?? 1;
  const format = new Intl.NumberFormat('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    signDisplay: options.signed === true ? 'exceptZero' : 'negative',
  });
  return `${format.format(value)}%`;
}
