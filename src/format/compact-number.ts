/**
 * Human-friendly counts for terminal tables: three significant digits with a K/M/B suffix
 * (`48.1M`, `270K`, `1.23K`); exact integers belong in JSON and CSV, never these strings.
 */

const UNITS = [
  { suffix: 'B', size: 1e9 },
  { suffix: 'M', size: 1e6 },
  { suffix: 'K', size: 1e3 },
] as const;

/** Formats a non-negative count with three significant digits and a unit; below 1,000 it is exact. */
export function formatCompactCount(count: number): string {
  if (!Number.isFinite(count)) return String(count);
  const magnitude = Math.abs(count);
  if (magnitude < 1000) return String(Math.round(count));
  // Walk from the smallest unit up so that rounding to 3 digits never prints 1000K (it becomes 1.00M).
  for (let i = UNITS.length - 1; i >= 0; i -= 1) {
    const unit = UNITS[i];
    if (unit === undefined) continue;
    const scaled = magnitude / unit.size;
    const digits = scaled < 10 ? 2 : scaled < 100 ? 1 : 0;
    const text = scaled.toFixed(digits);
    if (Number(text) < 1000 || i === 0) return `${count < 0 ? '-' : ''}${text}${unit.suffix}`;
  }
  return String(count);
}
