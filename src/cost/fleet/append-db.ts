/**
 * `--db FILE`: the run's fleet tables appended to a DuckDB file that keeps every run (`runs` says
 * which). The file gets the tables of `sql/fleet_schema.sql` with their `COMMENT ON` text and the
 * fleet view of `sql/fleet_view.sql`. As with every output (see `../output-path.ts`), the file is
 * never modified in place: the run appends to a copy beside it, checkpointed and renamed over the
 * file on success, dropped on failure. A transaction alone would not do: the schema of a new file
 * is created before it, and a kill can leave a `.wal` the next open replays; with the copy, a run
 * killed at any moment leaves the file exactly as the previous run left it (or absent).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import type { CostDb } from '../db.js';
import { readSqlFile } from '../db.js';
import { outputTarget, removeStaleTemps, tempPathFor } from '../output-path.js';
import { CachecostError } from '../../session/errors.js';
import { FLEET_TABLES } from './recorder.js';

const ALIAS = 'cachecost_out';
/** The `--db` file itself, attached only to hold DuckDB's lock on it while its copy is written. */
const LOCK_ALIAS = 'cachecost_locked';

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function removeTemp(temp: string): void {
  rmSync(temp, { force: true });
  rmSync(`${temp}.wal`, { force: true });
}

/**
 * Appends the filled `fleet` tables of `db` to the DuckDB file `path` (created when missing; a
 * symbolic link is written through). The file is replaced in one rename when the run's rows are in.
 */
export async function appendFleetDb(db: CostDb, path: string): Promise<void> {
  let target: string;
  let temp: string;
  try {
    target = await outputTarget(path);
    await removeStaleTemps(target);
    temp = tempPathFor(target);
  } catch (error) {
    throw new CachecostError('DATABASE_ERROR', `cannot open database ${path}: ${firstLine(error)}`, { cause: error });
  }
  // Errors name the user's path, never the temporary copy.
  const named = (error: unknown): string => firstLine(error).split(temp).join(path);
  // The file itself stays attached (unchanged) until the copy replaces it: DuckDB's lock makes a
  // concurrent run fail clearly instead of one run's rename dropping the other's rows, and a file
  // that is not a database is reported before any copy is made.
  const locked = existsSync(target);
  if (locked) {
    try {
      await db.query(`ATTACH ${sqlString(target)} AS ${LOCK_ALIAS}`);
    } catch (error) {
      throw new CachecostError('DATABASE_ERROR', `cannot open database ${path}: ${firstLine(error)}`, { cause: error });
    }
  }
  try {
    try {
      // A `.wal` a previous writer left is folded into the file first: the copy takes the file alone.
      if (locked && existsSync(`${target}.wal`)) await db.query(`CHECKPOINT ${LOCK_ALIAS}`);
      if (locked) await copyFile(target, temp);
    } catch (error) {
      throw new CachecostError('DATABASE_ERROR', `cannot open database ${path}: ${named(error)}`, { cause: error });
    }
    await appendTo(db, temp, path, named);
    try {
      renameSync(temp, target);
    } catch (error) {
      throw new CachecostError('DATABASE_ERROR', `cannot write database ${path}: ${named(error)}`, { cause: error });
    }
  } finally {
    // After a rename there is nothing left to remove; after a failure, the copy goes.
    removeTemp(temp);
    if (locked) await db.query(`DETACH ${LOCK_ALIAS}`).catch(() => undefined);
  }
}

/** The append itself, on the file `file` (the temporary copy); `path` and `named` word the errors. */
async function appendTo(db: CostDb, file: string, path: string, named: (error: unknown) => string): Promise<void> {
  try {
    await db.query(`ATTACH ${sqlString(file)} AS ${ALIAS}`);
  } catch (error) {
    throw new CachecostError('DATABASE_ERROR', `cannot open database ${path}: ${named(error)}`, { cause: error });
  }
  let attached = true;
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
      for (const table of FLEET_TABLES)
        await db.query(`INSERT INTO ${ALIAS}.main.${table} BY NAME SELECT * FROM memory.fleet.${table}`);
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    // Everything into the file itself (no `.wal` beside it) and the file closed before it is renamed.
    await db.query(`CHECKPOINT ${ALIAS}`);
    await db.query(`DETACH ${ALIAS}`);
    attached = false;
  } catch (error) {
    if (error instanceof CachecostError) throw error;
    throw new CachecostError('DATABASE_ERROR', `cannot write database ${path}: ${named(error)}`, { cause: error });
  } finally {
    if (attached) await db.query(`DETACH ${ALIAS}`).catch(() => undefined);
  }
}
