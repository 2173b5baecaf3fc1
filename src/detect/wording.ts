/** Numbers as the one-line flag summaries print them (exact values stay in `evidence`). */
import { formatCompactCount } from '../format/compact-number.js';
import { picoUsdToUsd } from '../cost/money.js';

/** `270K`, `48.1M`, `950`. */
export function tokens(count: number): string {
  return formatCompactCount(count);
}

/** `5,000`: an exact integer with thousands separators. */
export function integer(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `$8.23`, `$0.0714`, `$123`; sign kept. */
export function usd(picoUsd: bigint): string {
  const value = picoUsdToUsd(picoUsd);
  const magnitude = Math.abs(value);
  const digits = magnitude >= 100 ? 0 : magnitude >= 1 ? 2 : 4;
  return `${value < 0 ? '-' : ''}$${magnitude.toFixed(digits)}`;
}

/** `3.4×`. */
export function times(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}×`;
}

/** `1 request`, `3 requests`. */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}

/** USD as a number for the evidence (null when unpriced). */
export function usdNumber(picoUsd: bigint | null): number | null {
  return picoUsd === null ? null : picoUsdToUsd(picoUsd);
}

/** `12.5%` (a value that rounds to zero prints without a sign). */
export function percent(value: number): string {
  return `${(Math.abs(value) < 0.05 ? 0 : value).toFixed(1)}%`;
}
