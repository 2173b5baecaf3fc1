/**
 * Writes a run's fleet tables as Parquet under `<out>/<table>/host=<host>/date=<YYYY-MM-DD>/`
 * (Hive partitioning; rows without a date go to `date=__HIVE_DEFAULT_PARTITION__`, as Hive and
 * Spark name a NULL partition). DuckDB writes everything into a staging folder inside `<out>`
 * first; each file then replaces its destination by rename, atomic within one filesystem.
 *
 * Re-exporting replaces, never adds: the run covers its host on every date any of its data rows
 * falls on, and for each data table each such partition ends up holding exactly this run's files
 * (old files not rewritten are removed, a partition this run has no rows for is emptied). `runs`
 * keeps one file per run (`run-<id>.parquet`): the history of exports.
 */
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CostDb } from '../db.js';
import { CachecostError } from '../../session/errors.js';
import type { FleetTable } from './recorder.js';
import { FLEET_TABLES } from './recorder.js';

/** The data tables (everything but `runs`), whose partitions a re-export replaces. */
export const DATA_TABLES = FLEET_TABLES.filter((table) => table !== 'runs');

export type ParquetWriteSummary = {
  readonly outDir: string;
  /** Rows written per table. */
  readonly rows: Readonly<Record<FleetTable, number>>;
  /** Partition folder names (`date=…`) of this host the run replaced, sorted. */
  readonly dates: readonly string[];
  readonly files: number;
};

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function ioError(action: string, path: string, error: unknown): CachecostError {
  return new CachecostError(
    'IO_ERROR',
    `cannot ${action} ${path}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    { cause: error },
  );
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioError('read', dir, error);
  }
}

async function moveInto(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    throw ioError('write', to, error);
  }
}

/** Makes `dest` hold exactly the Parquet files of `staged` (none: the partition is emptied). */
async function replacePartition(staged: string, dest: string): Promise<number> {
  const fresh = (await entries(staged)).filter((name) => name.endsWith('.parquet'));
  if (fresh.length > 0) {
    try {
      await mkdir(dest, { recursive: true });
    } catch (error) {
      throw ioError('create', dest, error);
    }
  }
  // Each rename replaces the file of the same name in one step; only then are leftovers removed.
  for (const name of fresh) await moveInto(join(staged, name), join(dest, name));
  for (const name of await entries(dest)) {
    if (name.endsWith('.parquet') && !fresh.includes(name)) await rm(join(dest, name), { force: true });
  }
  if (fresh.length === 0 && (await entries(dest)).length === 0) await rmdir(dest).catch(() => undefined);
  return fresh.length;
}

/** Writes the `fleet` tables of `db` (one run, filled) to `outDir`; see the module comment. */
export async function writeFleetParquet(
  db: CostDb,
  outDir: string,
  run: { readonly runId: string; readonly host: string },
): Promise<ParquetWriteSummary> {
  try {
    await mkdir(outDir, { recursive: true });
  } catch (error) {
    throw ioError('create directory', outDir, error);
  }
  // Hidden, so that readers globbing `<out>/**/*.parquet` skip a staging folder a crash left.
  const staging = join(outDir, `.staging-${run.runId}-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(staging);
  } catch (error) {
    throw ioError('create directory', staging, error);
  }
  const rows = {} as Record<FleetTable, number>;
  let files = 0;
  try {
    for (const table of FLEET_TABLES) {
      const [count] = await db.query(`SELECT count(*) AS n FROM memory.fleet.${table}`);
      rows[table] = Number(count?.['n'] ?? 0);
      if (rows[table] === 0) continue;
      try {
        await db.query(
          `COPY (SELECT * FROM memory.fleet.${table}) TO ${sqlString(join(staging, table))} ` +
            '(FORMAT parquet, PARTITION_BY (host, date), COMPRESSION zstd)',
        );
      } catch (error) {
        throw ioError('write', join(outDir, table), error);
      }
    }
    const hostDir = `host=${run.host}`;
    const dates = new Set<string>();
    for (const table of DATA_TABLES) for (const name of await entries(join(staging, table, hostDir))) dates.add(name);
    for (const table of DATA_TABLES) {
      for (const date of dates)
        files += await replacePartition(join(staging, table, hostDir, date), join(outDir, table, hostDir, date));
    }
    for (const date of await entries(join(staging, 'runs', hostDir))) {
      const staged = (await entries(join(staging, 'runs', hostDir, date))).filter((name) => name.endsWith('.parquet'));
      const dest = join(outDir, 'runs', hostDir, date);
      await mkdir(dest, { recursive: true }).catch((error: unknown) => {
        throw ioError('create', dest, error);
      });
      for (const [index, name] of staged.entries()) {
        await moveInto(
          join(staging, 'runs', hostDir, date, name),
          join(dest, `run-${run.runId}${index === 0 ? '' : `-${index}`}.parquet`),
        );
        files += 1;
      }
    }
    return { outDir, rows, dates: [...dates].sort(), files };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
