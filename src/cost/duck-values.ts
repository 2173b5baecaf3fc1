/**
 * Reading DuckDB result values at the boundary: integers become numbers (checked safe), money
 * stays exact (bigint pico-dollars or exact decimal strings), lists become arrays. A value of an
 * unexpected type is a broken invariant of our own SQL, so it throws.
 *
 * Only duck-typed checks are used here so that `@duckdb/node-api` is not imported at load time.
 */
import { bigintToSafeNumber } from './money.js';

/** A row as `@duckdb/node-api` returns it from `getRowObjects()`. */
export type DuckRow = Readonly<Record<string, unknown>>;

function fail(column: string, expected: string, value: unknown): never {
  throw new TypeError(`column ${column}: expected ${expected}, got ${typeof value}`);
}

function field(row: DuckRow, column: string): unknown {
  if (!(column in row)) throw new TypeError(`column ${column} is missing from the result`);
  return row[column];
}

/** An integer column as a number. */
export function intOf(row: DuckRow, column: string): number {
  const value = field(row, column);
  if (typeof value === 'bigint') return bigintToSafeNumber(value);
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return fail(column, 'an integer', value);
}

export function intOrNull(row: DuckRow, column: string): number | null {
  return field(row, column) === null ? null : intOf(row, column);
}

/** A HUGEINT/BIGINT money column (pico-dollars), exact. */
export function picoOrNull(row: DuckRow, column: string): bigint | null {
  const value = field(row, column);
  if (value === null) return null;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return fail(column, 'an integer amount', value);
}

export function doubleOrNull(row: DuckRow, column: string): number | null {
  const value = field(row, column);
  if (value === null) return null;
  if (typeof value === 'number') return value;
  return fail(column, 'a number', value);
}

export function stringOf(row: DuckRow, column: string): string {
  const value = field(row, column);
  return typeof value === 'string' ? value : fail(column, 'a string', value);
}

export function stringOrNull(row: DuckRow, column: string): string | null {
  const value = field(row, column);
  return value === null ? null : stringOf(row, column);
}

export function boolOf(row: DuckRow, column: string): boolean {
  const value = field(row, column);
  return typeof value === 'boolean' ? value : fail(column, 'a boolean', value);
}

function itemsOf(value: unknown): readonly unknown[] | null {
  if (typeof value === 'object' && value !== null && 'items' in value && Array.isArray(value.items)) return value.items;
  return null;
}

/** A VARCHAR[] column as strings. */
export function stringListOf(row: DuckRow, column: string): string[] {
  const items = itemsOf(field(row, column));
  if (items === null) return fail(column, 'a list', field(row, column));
  return items.map((item) => (typeof item === 'string' ? item : fail(column, 'a list of strings', item)));
}

/** A DECIMAL value as its exact decimal string without trailing zeros; null stays null. */
function decimalString(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || !('scale' in value) || !('value' in value)) return null;
  const { scale, value: scaled } = value;
  if (typeof scale !== 'number' || typeof scaled !== 'bigint') return null;
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A value ready for a CSV cell. */
export type CsvValue = string | number | boolean | null;

/**
 * Any result value as a CSV cell: integers as numbers, decimals (USD) as exact strings, lists
 * joined with `;`, floats as numbers, strings and booleans as they are.
 */
export function csvValue(column: string, value: unknown): CsvValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (typeof value === 'bigint') return bigintToSafeNumber(value);
  const decimal = decimalString(value);
  if (decimal !== null) return decimal;
  const items = itemsOf(value);
  if (items !== null) return items.map((item) => String(item)).join(';');
  return fail(column, 'a CSV-representable value', value);
}
