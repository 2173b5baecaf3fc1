/**
 * The one money formatter for people (tables, HTML, chart labels, notes). Exact amounts are
 * integer pico-dollars (`src/cost/money.ts`) or exact decimal USD strings; this module only
 * rounds them for display, as `Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })`
 * does (`decimal.ts`, without ICU's ~20 ms start):
 *
 * - 1 dollar and more: cents with thousands separators (`$1,234.56`);
 * - below 1 dollar: four decimals (`$0.0155`), so that small sessions do not all read `$0.00`;
 * - a value that rounds to zero never shows a sign (`$0.0000`, not `-$0.0000`).
 *
 * Machine outputs (JSON, CSV) carry the exact decimal string instead (README "JSON and CSV").
 */

import { formatDecimal } from './decimal.js';

/** Shown instead of an amount when nothing could be priced (pricing.md: unpriced is never $0). */
export const UNPRICED = 'unpriced';
/**
 * Appended to a sum that leaves unpriced requests out (`$5.12+`: at least this much). The one
 * marker of an incomplete cost in every human output; JSON and CSV say `costComplete: false`.
 */
export const INCOMPLETE_MARK = '+';

const PICO_PER_USD = 1_000_000_000_000n;

/** An amount: pico-dollars (bigint), an exact decimal USD string, or a USD number. */
export type Amount = bigint | string | number;

/** The amount as a USD number (display only: the one lossy step). */
export function amountToUsd(amount: Amount): number {
  if (typeof amount === 'number') return amount;
  if (typeof amount === 'string') return Number(amount);
  const whole = amount / PICO_PER_USD;
  return Number(whole) + Number(amount % PICO_PER_USD) / 1e12;
}

export type UsdFormatOptions = {
  /** The sum leaves unpriced requests out: append `INCOMPLETE_MARK`. */
  readonly incomplete?: boolean;
  /** Show `+` before a positive amount (a signed difference). */
  readonly signed?: boolean;
};

/** `$1,234.56`, `$0.0155`, `-$2.10`, `unpriced` (null), `$5.12+` (incomplete). */
export function formatUsd(amount: Amount | null, options: UsdFormatOptions = {}): string {
  if (amount === null) return UNPRICED;
  const usd = amountToUsd(amount);
  if (!Number.isFinite(usd)) return String(usd);
  const fractionDigits = Math.abs(usd) >= 1 ? 2 : 4;
  const format = (value: number): string =>
    formatDecimal(value, { fractionDigits, signDisplay: 'negative', prefix: '$' });
  let text = format(usd);
  // signDisplay 'negative' drops the sign of a negative zero after rounding (-0.00001 → $0.0000).
  if (options.signed === true && usd > 0 && text !== format(0)) text = `+${text}`;
  return options.incomplete === true ? `${text}${INCOMPLETE_MARK}` : text;
}

/** Dollars for chart axes and labels: the same rule as the tables. */
export const formatUsdLabel = (usd: number): string => formatUsd(usd);
