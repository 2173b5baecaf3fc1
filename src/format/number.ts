/**
 * The one count formatter for people, as `Intl.NumberFormat('en-US')` formats (`decimal.ts`,
 * without ICU's ~20 ms start): exact counts with thousands separators (requests, sessions,
 * compactions: `1,360`), token amounts compact with three significant digits (`48.1M`, `270K`,
 * `1.23K`; below 1,000 exact; `compact-number.ts`, whose units stop at B so a sum of tokens never
 * reads as T), percentages with one decimal and never `-0.0%`. JSON and CSV carry exact integers,
 * never these strings.
 */

import { formatCompactCount } from './compact-number.js';
import { formatDecimal } from './decimal.js';

/** An exact count: `1,360`. */
export function formatCount(value: number): string {
  return formatDecimal(value, { fractionDigits: 0, signDisplay: 'auto' });
}

/** A token amount: compact above 999 (`1.23K`, `48.1M`, `5.10B`), exact below. */
export function formatTokens(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) < 1000) return formatDecimal(Math.round(value), { fractionDigits: 0, signDisplay: 'auto' });
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
  return `${formatDecimal(value, { fractionDigits: digits, signDisplay: options.signed === true ? 'exceptZero' : 'negative' })}%`;
}
