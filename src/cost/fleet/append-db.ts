/**
 * `--db FILE`: the run's fleet tables appended to a DuckDB file that keeps every run (`runs` says
 * which). The file gets the tables of `sql/fleet_schema.sql` with their `COMMENT ON` text and the
 * fleet view of `sql/fleet_view.sql`; each run's rows go in one transaction, so a run that dies
 * half-way leaves the file as the previous run left it.
 */
import type { CostDb } from '../db.js';
import { readSqlFile } from '../db.js';
import { CachecostError } from '../../session/errors.js';
import { FLEET_TABLES } from './recorder.js';

const ALIAS = 'cachecost_out';

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Appends the filled `fleet` tables of `db` to the DuckDB file `path` (created when missing). */
export async function appendFleetDb(db: CostDb, path: string): Promise<void> {
  try {
    await db.query(`ATTACH ${sqlString(path)} AS ${ALIAS}`);
  } catch (error) {
    throw new CachecostError('DATABASE_ERROR', `cannot open database ${path}: ${firstLine(error)}`, { cause: error });
  }
  try {
    // A file written by an older cachecost holds one run's working tables under the same names.
    const existing = await db.query(
      `SELECT table_name FROM duckdb_columns() WHERE database_name = '${ALIAS}' AND schema_name = 'main' ` +
        `AND table_name IN (${FLEET_TABLES.map((t) => `'${t}'`).join(', ')}) GROUP BY table_name ` +
        `HAVING count(*) FILTER (WHERE column_name = 'run_id') = 0`,
    );
    if (existing.length > 0) {
      throw new CachecostError(
        'DATABASE_ERROR',
        `${path} holds cachecost tables of an older layout (${existing.map((row) => String(row['table_name'])).join(', ')} without run_id); write to a new file`,
      );
    }
    try {
      await db.query(`USE ${ALIAS}`);
      await db.query(await readSqlFile('fleet_schema'));
      await db.query(await readSqlFile('fleet_view'));
    } finally {
      await db.query('USE memory.main');
    }
    await db.query('BEGIN TRANSACTION');
    try {
      for (const table of FLEET_TABLES) await db.query(`INSERT INTO ${ALIAS}.main.${table} BY NAME SELECT * FROM memory.fleet.${table}`);
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    if (error instanceof CachecostError) throw error;
    throw new CachecostError('DATABASE_ERROR', `cannot write database ${path}: ${firstLine(error)}`, { cause: error });
  } finally {
    await db.query(`DETACH ${ALIAS}`).catch(() => undefined);
  }
}
