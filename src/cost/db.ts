/**
 * The DuckDB cost database (replay.md §8): tables `requests`, `compactions`, `sessions`,
 * `scenarios`, `prices`, `model_names`, and the report views defined in `sql/*.sql`, which
 * compute every cost in SQL. In memory by default, a file on request (its cachecost tables are
 * replaced on each open). `@duckdb/node-api` is imported lazily, only here, only when opened.
 *
 * A file database is never modified in place: the run works on a temporary copy beside it, and
 * `close()` renames the copy over the file, so a run that is killed or fails leaves the previous
 * file exactly as it was (`abandon()` drops the copy). A symbolic link is written through.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { CachecostError, errorMessage } from '../session/errors.js';
import { csvValue } from './duck-values.js';
import type { CsvValue, DuckRow } from './duck-values.js';
import { resolveModelName } from './model-resolution.js';
import { outputTarget, removeStaleTemps, tempPathFor } from './output-path.js';
import type { PriceTable } from './price-table.js';
import {
  compactionSummaryOf,
  fidelityOf,
  scenarioCostOf,
  scenarioSavingOf,
  sessionCostOf,
  unpricedModelOf,
} from './reports.js';
import type {
  CompactionSummary,
  Fidelity,
  ScenarioCost,
  ScenarioSaving,
  SessionCost,
  UnpricedModel,
} from './reports.js';
import type { CompactionRow, RequestRow, ScenarioRow, SessionRow } from './rows.js';
import type { SimulateSummary } from './summary-aggregate.js';

/** Report views, in creation order (a view may read the ones before it). */
const VIEW_FILES = [
  'request_costs',
  'session_costs',
  'scenario_costs',
  'savings',
  'session_savings',
  'scenario_savings',
  'compaction_summary',
  'fidelity',
  'unpriced_models',
] as const;

/** The CSV exports (`<name>.csv`), each a query in `sql/export_<name>.sql`. */
export const CSV_EXPORTS = ['requests', 'sessions', 'scenarios', 'compactions'] as const;
export type CsvExportName = (typeof CSV_EXPORTS)[number];

/** Rows ready for papaparse, with the column order fixed by the SQL. */
export type CsvExport = { readonly columns: readonly string[]; readonly rows: readonly Record<string, CsvValue>[] };

export type CostDbOptions = {
  /** A database file; null or absent = in memory. */
  readonly path?: string | null | undefined;
  readonly prices: PriceTable;
  /**
   * DuckDB's worker threads; absent = DuckDB's default (one per core). For a caller whose queries
   * read too few rows to gain from parallel plans, where the extra threads only compete with the
   * process's own work (`simulate`).
   */
  readonly threads?: number;
};

/** Reads one of the package's SQL files (src/cost/sql in development, dist/cost/sql when built). */
export async function readSqlFile(name: string): Promise<string> {
  return readFile(new URL(`./sql/${name}.sql`, import.meta.url), 'utf8');
}

function firstLine(error: unknown): string {
  const message = errorMessage(error);
  return message.split('\n')[0] ?? message;
}

type DuckApi = typeof import('@duckdb/node-api');

let duckApi: DuckApi | null = null;

/**
 * `@duckdb/node-api` is CommonJS: required, not imported. An ESM `import()` of it runs Node's
 * CommonJS export lexer over the package's whole re-export graph first, which measured ~0.3 s of
 * CPU more than `require` (`/usr/bin/time node -e …` both ways), on every run that opens a database.
 */
function loadDuckApi(): DuckApi {
  duckApi ??= createRequire(import.meta.url)('@duckdb/node-api') as DuckApi;
  return duckApi;
}

/** Column types `appendTuples` can write. */
export type TupleColumn = 'varchar' | 'integer' | 'bigint';
export type TupleValue = string | number | null;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * A whole number into a BIGINT column: as a 32-bit integer where it fits (the appender widens it
 * to the column's type, exactly), else as a bigint. Token counts almost always fit, and a
 * `BigInt` per value cost ~30% of appending a replay's request rows.
 */
function appendWhole(appender: DuckDBAppender, value: number): void {
  if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) appender.appendInteger(value);
  else appender.appendBigInt(BigInt(value)); // throws on a fraction, as before: a replay bug
}

function appendNullable<T>(appender: DuckDBAppender, value: T | null, append: (value: T) => void): void {
  if (value === null) appender.appendNull();
  else append(value);
}

export class CostDb {
  private readonly resolvedModels = new Set<string>();
  /** Whether `withFrozenCosts` holds a snapshot of `request_costs`. */
  private frozen = false;

  private constructor(
    private readonly api: DuckApi,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private prices: PriceTable,
    /** The temporary copy being written and the file it replaces on close; null in memory. */
    private readonly file: { readonly temp: string; readonly target: string } | null,
  ) {}

  /** Opens (creating) the database and its tables; a file that cannot be opened is `DATABASE_ERROR`. */
  static async open(options: CostDbOptions): Promise<CostDb> {
    const api = loadDuckApi();
    const path = options.path ?? null;
    let file: { readonly temp: string; readonly target: string } | null = null;
    let instance: DuckDBInstance;
    let connection: DuckDBConnection;
    const named = (error: unknown): string => {
      const line = firstLine(error);
      return file === null ? line : line.split(file.temp).join(path ?? '');
    };
    try {
      if (path !== null) {
        const target = await outputTarget(path);
        await removeStaleTemps(target);
        if (existsSync(target)) {
          // Opened once as it is, so a lock held by another process or a file that is not a
          // database is reported against the user's path before any copy is made.
          const current = await api.DuckDBInstance.create(target, { access_mode: 'READ_ONLY' });
          current.closeSync();
        }
        file = { temp: tempPathFor(target), target };
        if (existsSync(target)) await copyFile(target, file.temp);
      }
      const threads = options.threads;
      instance = await api.DuckDBInstance.create(
        file?.temp ?? ':memory:',
        threads === undefined ? undefined : { threads: String(threads) },
      );
      connection = await instance.connect();
    } catch (error) {
      if (file !== null) removeTemp(file.temp);
      throw new CachecostError('DATABASE_ERROR', `cannot open database ${path ?? '(memory)'}: ${named(error)}`, {
        cause: error,
      });
    }
    const db = new CostDb(api, instance, connection, options.prices, file);
    try {
      await connection.run(await readSqlFile('schema'));
    } catch (error) {
      db.abandon();
      throw new CachecostError('DATABASE_ERROR', `cannot write database ${path ?? '(memory)'}: ${named(error)}`, {
        cause: error,
      });
    }
    for (const view of VIEW_FILES) await connection.run(await readSqlFile(view));
    await db.writePrices();
    return db;
  }

  /** Replaces the price table (e.g. after a `--pricing` overlay); model names are resolved again. */
  async setPrices(prices: PriceTable): Promise<void> {
    this.assertNotFrozen();
    this.prices = prices;
    await this.writePrices();
  }

  private async writePrices(): Promise<void> {
    const { LIST, VARCHAR } = this.api;
    await this.connection.run('DELETE FROM prices');
    const appender = await this.connection.createAppender('prices');
    for (const price of this.prices.prices) {
      const rates = price.ratesPicoUsdPerToken;
      const tier = price.longContext;
      const bigint = (value: number | null): void =>
        appendNullable(appender, value, (v) => appender.appendBigInt(BigInt(v)));
      appender.appendVarchar(price.id);
      appender.appendVarchar(price.provider);
      appender.appendVarchar(price.cacheFamily);
      bigint(price.validFromMs);
      bigint(price.validToMs);
      bigint(rates.input);
      bigint(rates.output);
      bigint(rates.cacheRead);
      bigint(rates.cacheWrite5m);
      bigint(rates.cacheWrite1h);
      bigint(tier?.thresholdTokens ?? null);
      bigint(tier?.ratesPicoUsdPerToken.input ?? null);
      bigint(tier?.ratesPicoUsdPerToken.output ?? null);
      bigint(tier?.ratesPicoUsdPerToken.cacheRead ?? null);
      bigint(tier?.ratesPicoUsdPerToken.cacheWrite5m ?? null);
      bigint(tier?.ratesPicoUsdPerToken.cacheWrite1h ?? null);
      bigint(price.contextWindowTokens);
      bigint(price.maxOutputTokens);
      appender.appendList([...price.derived], LIST(VARCHAR));
      appender.appendVarchar(price.source);
      appender.appendVarchar(price.date);
      appender.appendVarchar(price.origin);
      appender.endRow();
    }
    appender.closeSync();
    const names = [...this.resolvedModels];
    this.resolvedModels.clear();
    await this.connection.run('DELETE FROM model_names');
    await this.resolveModels(names);
  }

  /** Records how each new model name resolves, so the SQL join can price it. */
  private async resolveModels(names: Iterable<string>): Promise<void> {
    const fresh = [...names].filter((name) => !this.resolvedModels.has(name));
    if (fresh.length === 0) return;
    const appender = await this.connection.createAppender('model_names');
    for (const name of fresh) {
      const resolved = resolveModelName(this.prices, name);
      appender.appendVarchar(name);
      appendNullable(appender, resolved?.id ?? null, (id) => appender.appendVarchar(id));
      appendNullable(appender, resolved?.basis ?? null, (basis) => appender.appendVarchar(basis));
      appender.endRow();
      this.resolvedModels.add(name);
    }
    appender.closeSync();
  }

  async insertScenarios(rows: readonly ScenarioRow[]): Promise<void> {
    const appender = await this.connection.createAppender('scenarios');
    for (const row of rows) {
      appender.appendVarchar(row.name);
      appender.appendVarchar(row.family);
      appender.appendVarchar(row.params_json);
      appender.endRow();
    }
    appender.closeSync();
  }

  /** Bulk-inserts request rows (the Appender API); a row breaking a table CHECK throws (a replay bug). */
  async insertRequests(rows: readonly RequestRow[]): Promise<void> {
    this.assertNotFrozen();
    const models = new Set<string>();
    for (const row of rows) models.add(row.model);
    await this.resolveModels(models);
    const appender = await this.connection.createAppender('requests');
    for (const row of rows) {
      appender.appendVarchar(row.session_id);
      appender.appendVarchar(row.source);
      appender.appendVarchar(row.model);
      appender.appendVarchar(row.scenario);
      appender.appendInteger(row.request_index);
      appendNullable(appender, row.timestamp_ms, (ms) => appendWhole(appender, ms));
      appender.appendVarchar(row.kind);
      appendWhole(appender, row.prompt_tokens);
      appendWhole(appender, row.cache_read_tokens);
      appendWhole(appender, row.cache_write_5m_tokens);
      appendWhole(appender, row.cache_write_1h_tokens);
      appendWhole(appender, row.uncached_input_tokens);
      appendWhole(appender, row.output_tokens);
      appendWhole(appender, row.context_tokens_after);
      appender.appendBoolean(row.compaction_before);
      appender.appendInteger(row.overflow_retries);
      appender.appendBoolean(row.modelled);
      appender.endRow();
    }
    appender.closeSync();
  }

  async insertCompactions(rows: readonly CompactionRow[]): Promise<void> {
    const appender = await this.connection.createAppender('compactions');
    const bigint = (value: number | null): void =>
      appendNullable(appender, value, (v) => appender.appendBigInt(BigInt(v)));
    for (const row of rows) {
      appender.appendVarchar(row.session_id);
      appender.appendVarchar(row.scenario);
      appender.appendInteger(row.request_index);
      appender.appendVarchar(row.trigger);
      bigint(row.prompt_tokens_before);
      bigint(row.prompt_tokens_after);
      bigint(row.estimate_tokens_before);
      bigint(row.estimate_tokens_after);
      appender.appendInteger(row.messages_before);
      appendNullable(appender, row.messages_after, (v) => appender.appendInteger(v));
      bigint(row.summary_tokens);
      appender.appendBoolean(row.hook_blocked);
      appender.endRow();
    }
    appender.closeSync();
  }

  async insertSessions(rows: readonly SessionRow[]): Promise<void> {
    const { LIST, VARCHAR } = this.api;
    const appender = await this.connection.createAppender('sessions');
    for (const row of rows) {
      appender.appendVarchar(row.session_id);
      appender.appendVarchar(row.source);
      appender.appendList([...row.models], LIST(VARCHAR));
      appender.appendVarchar(row.scenario);
      appender.appendInteger(row.failed_turns);
      appendNullable(appender, row.fidelity_note, (note) => appender.appendVarchar(note));
      appender.appendList([...row.flags], LIST(VARCHAR));
      appender.endRow();
    }
    appender.closeSync();
  }

  /**
   * Appends plain tuples to `table` through one appender (side tables such as the bill's): values are
   * never spliced into SQL text, and one appender per call is far cheaper than `INSERT … VALUES`.
   */
  async appendTuples(
    table: string,
    columns: readonly TupleColumn[],
    rows: readonly (readonly TupleValue[])[],
  ): Promise<void> {
    if (rows.length === 0) return;
    const appender = await this.connection.createAppender(table);
    for (const row of rows) {
      for (const [i, column] of columns.entries()) {
        const value = row[i] ?? null;
        if (value === null) appender.appendNull();
        else if (column === 'varchar') appender.appendVarchar(String(value));
        else if (typeof value !== 'number' || !Number.isSafeInteger(value))
          throw new RangeError(`not an integer: ${String(value)}`);
        else if (column === 'integer') appender.appendInteger(value);
        else appender.appendBigInt(BigInt(value));
      }
      appender.endRow();
    }
    appender.closeSync();
  }

  /**
   * Runs `read` over a snapshot of `request_costs`: a temporary table of that name, which DuckDB
   * resolves before the `main` view (the temporary catalog comes first in its search path), so the
   * report views read each request's cost from it instead of joining `requests` to `prices` again
   * each time (the summary's five reads each did: ~110 ms apiece on a 100 MB FreeCode corpus).
   * The table is dropped afterwards; it is never part of a database file. Requests and prices
   * cannot change while it stands (the snapshot would no longer match them).
   */
  async withFrozenCosts<T>(read: () => Promise<T>): Promise<T> {
    if (this.frozen) return read();
    await this.connection.run('CREATE TEMP TABLE request_costs AS SELECT * FROM main.request_costs');
    this.frozen = true;
    try {
      return await read();
    } finally {
      this.frozen = false;
      await this.connection.run('DROP TABLE temp.request_costs');
    }
  }

  /** What `simulate` reads of the views (`summary-aggregate.ts` folds the same in TypeScript), priced once. */
  async simulateSummary(): Promise<SimulateSummary> {
    return this.withFrozenCosts(async () => ({
      sessionCosts: await this.sessionCosts(),
      sessionSavings: await this.sessionSavings(),
      scenarioCosts: await this.scenarioCosts(),
      scenarioSavings: await this.scenarioSavings(),
      fidelity: await this.fidelity(),
      unpricedModels: await this.unpricedModels(),
    }));
  }

  private assertNotFrozen(): void {
    if (this.frozen) throw new Error('invariant: requests or prices changed while request_costs is frozen');
  }

  private async rows(sql: string): Promise<DuckRow[]> {
    const reader = await this.connection.runAndReadAll(sql);
    return reader.getRowObjects();
  }

  /** `session_costs.sql`, ordered by session and scenario. */
  async sessionCosts(): Promise<SessionCost[]> {
    return (await this.rows('SELECT * FROM session_costs ORDER BY session_id, scenario')).map(sessionCostOf);
  }

  /** `scenario_costs.sql`, ordered by scenario. */
  async scenarioCosts(): Promise<ScenarioCost[]> {
    return (await this.rows('SELECT * FROM scenario_costs ORDER BY scenario')).map(scenarioCostOf);
  }

  /** `session_savings.sql`: each session × scenario against `recorded` and `none`. */
  async sessionSavings(): Promise<ScenarioSaving[]> {
    return (await this.rows('SELECT * FROM session_savings ORDER BY session_id, scenario')).map(scenarioSavingOf);
  }

  /** `scenario_savings.sql`: each scenario's totals against `recorded` and `none`. */
  async scenarioSavings(): Promise<ScenarioSaving[]> {
    return (await this.rows('SELECT * FROM scenario_savings ORDER BY scenario')).map(scenarioSavingOf);
  }

  /** `compaction_summary.sql`. */
  async compactionSummary(): Promise<CompactionSummary[]> {
    return (await this.rows('SELECT * FROM compaction_summary ORDER BY session_id, scenario')).map(compactionSummaryOf);
  }

  /** `fidelity.sql`: sessions with both `measured` and `recorded` request rows. */
  async fidelity(): Promise<Fidelity[]> {
    return (await this.rows('SELECT * FROM fidelity ORDER BY session_id')).map(fidelityOf);
  }

  /** `unpriced_models.sql`. */
  async unpricedModels(): Promise<UnpricedModel[]> {
    return (await this.rows('SELECT * FROM unpriced_models ORDER BY model, reason')).map(unpricedModelOf);
  }

  /** The rows of `<name>.csv` (`sql/export_<name>.sql`), columns in their stable order. */
  async exportCsv(name: CsvExportName): Promise<CsvExport> {
    const reader = await this.connection.runAndReadAll(await readSqlFile(`export_${name}`));
    const columns = reader.columnNames();
    const rows = reader.getRowObjects().map((row) => {
      const out: Record<string, CsvValue> = {};
      for (const column of columns) out[column] = csvValue(column, row[column] ?? null);
      return out;
    });
    return { columns, rows };
  }

  /** An appender on any table of this database (modules that stage their own tables, e.g. the fleet export). */
  async appender(table: string, schema?: string): Promise<DuckDBAppender> {
    return this.connection.createAppender(table, schema);
  }

  /** The `@duckdb/node-api` module this database was opened with (type constructors for appenders). */
  duckApi(): DuckApi {
    return this.api;
  }

  /** Runs ad-hoc SQL (tests, debugging) and returns raw rows. */
  async query(sql: string): Promise<DuckRow[]> {
    return this.rows(sql);
  }

  /**
   * Closes the connection and the database; a file database is flushed and then replaces the
   * file it was opened on (one rename: a reader sees the old file or the new one).
   */
  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    if (this.file === null) return;
    try {
      renameSync(this.file.temp, this.file.target);
    } catch (error) {
      removeTemp(this.file.temp);
      const reason = firstLine(error).split(this.file.temp).join(this.file.target);
      throw new CachecostError('DATABASE_ERROR', `cannot write database ${this.file.target}: ${reason}`, {
        cause: error,
      });
    }
  }

  /** Closes without keeping anything: a file database's previous content stays as it was. */
  abandon(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    if (this.file !== null) removeTemp(this.file.temp);
  }
}

function removeTemp(temp: string): void {
  rmSync(temp, { force: true });
  rmSync(`${temp}.wal`, { force: true });
}
