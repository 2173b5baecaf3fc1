/** Test helper: read exported Parquet (or a DuckDB file) with DuckDB directly, outside cachecost's own reader. */
import { DuckDBInstance } from '@duckdb/node-api';

export type Row = Record<string, unknown>;

export async function duck<T>(
  path: string | null,
  use: (query: (sql: string) => Promise<Row[]>) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(path ?? ':memory:');
  const connection = await instance.connect();
  try {
    return await use(async (sql) => (await connection.runAndReadAll(sql)).getRowObjects());
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** `read_parquet` over one table of an export, with its Hive partition columns. */
export function table(out: string, name: string): string {
  return `read_parquet('${out}/${name}/**/*.parquet', hive_partitioning = true, hive_types = {'host': VARCHAR, 'date': DATE})`;
}

/** Values as JSON-comparable text (bigint and DuckDB value objects included). */
export function plain(rows: readonly Row[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(row, (_key, value: unknown) =>
        typeof value === 'bigint'
          ? value.toString()
          : value &&
              typeof value === 'object' &&
              'toString' in value &&
              !Array.isArray(value) &&
              Object.getPrototypeOf(value) !== Object.prototype
            ? String(value)
            : value,
      ),
    )
    .sort();
}
