/**
 * `--from 'DIR/**\/*.parquet'`: many machines' exports read back into the cost database, so that
 * `report` (and `flags`) print the same reports with the same SQL as on local logs. The files are
 * sorted into tables by their Hive path (`<table>/host=…/date=…/`), loaded into the typed tables
 * of `sql/fleet_schema.sql` (schema `fleet`), and `sql/fleet_read.sql` maps them onto the views.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CostDb } from '../db.js';
import { readSqlFile } from '../db.js';
import { intOf, stringOf } from '../duck-values.js';
import { CachecostError } from '../../session/errors.js';
import type { FleetTable } from './recorder.js';
import { FLEET_TABLES, createFleetSchema } from './recorder.js';

export type FleetLoad = {
  readonly files: number;
  /** Hosts with request rows, sorted. */
  readonly hosts: readonly string[];
  readonly runs: number;
  /** Sessions the exports say hold session totals only (not in the bill). */
  readonly totalsOnlySessions: number;
  /** Requests whose usage the logs did not record (not in the bill), outside totals-only sessions. */
  readonly requestsWithoutUsage: number;
  /** Measured requests without a time. */
  readonly undatedRequests: number;
  /** Ingest issues the exporting runs counted. */
  readonly ingestIssues: number;
  /** Which columns every file of a table holds (an export written before a column existed lacks it). */
  readonly columns: FleetColumns;
};

/** The columns present in every loaded file of each table. */
export type FleetColumns = { readonly has: (table: FleetTable, column: string) => boolean };

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The table a Parquet file belongs to, from `…/<table>/host=<h>/date=<d>/<file>`; null when it does not fit. */
export function fleetTableOf(file: string): FleetTable | null {
  const parts = file.split(/[\\/]/);
  const at = parts.findIndex(
    (part, index) =>
      part.startsWith('host=') && parts[index + 1]?.startsWith('date=') === true && index + 3 === parts.length,
  );
  const table = at > 0 ? parts[at - 1] : undefined;
  return (FLEET_TABLES as readonly string[]).includes(table ?? '') ? (table as FleetTable) : null;
}

/** A directory means every Parquet file under it. */
function patternOf(from: string): string {
  try {
    if (statSync(from).isDirectory()) return join(from, '**', '*.parquet');
  } catch {
    // Not a path that exists: a glob.
  }
  return from;
}

/** Which exported sessions to keep: an id prefix, a text the project path contains (null = any). */
export type FleetFilter = { readonly session: string | null; readonly project: string | null };

/** The columns every file of each table holds, from the files' Parquet schemas (metadata only). */
async function columnsOf(db: CostDb, byTable: ReadonlyMap<FleetTable, readonly string[]>): Promise<FleetColumns> {
  const complete = new Set<string>();
  for (const [table, list] of byTable) {
    const rows = await db.query(
      `SELECT name, count(DISTINCT file_name) AS files FROM parquet_schema([${list.map(sqlString).join(', ')}]) GROUP BY name`,
    );
    for (const row of rows) if (intOf(row, 'files') === list.length) complete.add(`${table}.${stringOf(row, 'name')}`);
  }
  return { has: (table, column) => complete.has(`${table}.${column}`) };
}

/**
 * Loads the exports matching `from` into `db` (bill tables already created); see the module
 * comment. `prepare` runs on the loaded `fleet` tables before they are mapped onto the report
 * views (a command that keeps only some of the rows deletes the others there).
 */
export async function loadFleet(
  db: CostDb,
  from: string,
  filter: FleetFilter = { session: null, project: null },
  prepare?: (columns: FleetColumns) => Promise<void>,
): Promise<FleetLoad> {
  const pattern = patternOf(from);
  const globbed = (await db.query(`SELECT file FROM glob(${sqlString(pattern)}) ORDER BY file`)).map((row) =>
    stringOf(row, 'file'),
  );
  // Staging folders and temp files of a run that died are hidden; they are never part of an export.
  const files = globbed.filter(
    (file) => !file.split(/[\\/]/).some((part) => part.startsWith('.') && part !== '.' && part !== '..'),
  );
  if (files.length === 0) throw new CachecostError('PATH_NOT_FOUND', `no Parquet files match --from ${from}`);
  const byTable = new Map<FleetTable, string[]>();
  for (const file of files) {
    const table = fleetTableOf(file);
    if (table === null) {
      throw new CachecostError(
        'BAD_ARGUMENT',
        `--from: ${file} is not part of a cachecost export (expected <table>/host=<host>/date=<date>/<file>.parquet)`,
      );
    }
    byTable.set(table, [...(byTable.get(table) ?? []), file]);
  }
  if (!byTable.has('requests'))
    throw new CachecostError('BAD_ARGUMENT', `--from ${from}: no requests table among the ${files.length} files`);
  await createFleetSchema(db);
  for (const [table, list] of byTable) {
    try {
      await db.query(
        `INSERT INTO memory.fleet.${table} BY NAME SELECT * FROM read_parquet([${list.map(sqlString).join(', ')}], ` +
          "hive_partitioning = true, hive_types = {'host': VARCHAR, 'date': DATE}, union_by_name = true)",
      );
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new CachecostError('BAD_ARGUMENT', `--from: cannot read the ${table} table: ${message}`, { cause: error });
    }
  }
  // The same session filters as a bill over logs (`report --session/--project`), applied before the
  // counts so that the excluded sessions are not counted either.
  const keep: string[] = [];
  if (filter.session !== null) keep.push(`starts_with(session_id, ${sqlString(filter.session)})`);
  if (filter.project !== null) keep.push(`contains(coalesce(project, ''), ${sqlString(filter.project)})`);
  if (keep.length > 0) {
    for (const table of ['requests', 'sessions'] as const) {
      if (table === 'requests' || byTable.has(table))
        await db.query(`DELETE FROM memory.fleet.${table} WHERE NOT (${keep.join(' AND ')})`);
    }
  }
  const columns = await columnsOf(db, byTable);
  if (prepare !== undefined) await prepare(columns);
  await db.query(await readSqlFile('fleet_read'));
  const [summary] = await db.query(`
    SELECT
      (SELECT count(DISTINCT run_id) FROM fleet.requests) AS runs,
      (SELECT count(*) FROM fleet.sessions WHERE totals_only) AS totals_only,
      (SELECT coalesce(sum(requests_without_usage), 0) FROM fleet.sessions WHERE NOT totals_only) AS without_usage,
      (SELECT count(*) FROM fleet.requests WHERE scenario = 'measured' AND kind = 'request' AND timestamp IS NULL) AS undated,
      (SELECT coalesce(sum(ingest_issues), 0) FROM fleet.runs WHERE run_id IN (SELECT run_id FROM fleet.requests)) AS issues`);
  const hosts = (await db.query('SELECT DISTINCT host FROM fleet.requests ORDER BY host')).map((row) =>
    stringOf(row, 'host'),
  );
  if (summary === undefined) throw new Error('fleet summary returned no row');
  return {
    files: files.length,
    hosts,
    runs: intOf(summary, 'runs'),
    totalsOnlySessions: intOf(summary, 'totals_only'),
    requestsWithoutUsage: intOf(summary, 'without_usage'),
    undatedRequests: intOf(summary, 'undated'),
    ingestIssues: intOf(summary, 'issues'),
    columns,
  };
}
