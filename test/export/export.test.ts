/**
 * `cachecost export` and `--db` on fixtures: no message text leaves the machine unless
 * `--with-text`; simulated rows, compactions and flags with `--target`; `flags --from` equals
 * `flags`; a `--db` file keeps every run, documents every column with COMMENT ON, and refuses a
 * file of the old one-run layout; the README's fleet query runs unchanged on DuckDB and agrees
 * with `report --by project`; bad `--host` / `--from` are one-line errors.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import { fleetTableOf } from '../../src/cost/fleet/read-fleet.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import type { BillReport } from '../../src/report/bill-json.js';
import type { FlagsReport } from '../../src/report/flags-report.js';
import { cli } from '../cli/run.js';
import { duck, table } from './parquet.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DATASET = join(ROOT, 'datasets', 'freecode');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'freecode', 'home-newest');
const TABLES = ['requests', 'sessions', 'compactions', 'flags', 'items', 'runs'] as const;
const RUN = ['--started-at', '2026-02-01T10:00:00Z'];

/** An exact decimal USD string as integer pico-dollars (null = 0: a class with nothing in it). */
function pico(usd: string | null): bigint {
  if (usd === null) return 0n;
  const [whole = '0', fraction = ''] = usd.split('.');
  const negative = whole.startsWith('-');
  const magnitude = BigInt(whole.replace('-', '')) * 1_000_000_000_000n + BigInt(fraction.padEnd(12, '0').slice(0, 12));
  expect(fraction.length).toBeLessThanOrEqual(12);
  return negative ? -magnitude : magnitude;
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cachecost-export-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function ok(args: readonly string[]): Promise<string> {
  const result = await cli(args);
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** Every text value of every exported table, one string per cell. */
async function allText(out: string): Promise<string[]> {
  return duck(null, async (query) => {
    const cells: string[] = [];
    for (const name of TABLES) {
      const files = await query(`SELECT count(*) AS n FROM glob('${out}/${name}/**/*.parquet')`);
      if (files[0]?.['n'] === 0n) continue;
      const columns = (await query(`DESCRIBE SELECT * FROM ${table(out, name)}`)).filter((c) =>
        /VARCHAR/.test(String(c['column_type'])),
      );
      for (const column of columns) {
        const rows = await query(
          `SELECT CAST("${String(column['column_name'])}" AS VARCHAR) AS v FROM ${table(out, name)}`,
        );
        for (const row of rows) if (typeof row['v'] === 'string') cells.push(row['v']);
      }
    }
    return cells;
  });
}

describe('cachecost export', () => {
  it('exports ids and sizes but no message text, unless --with-text', async () => {
    const texts = new Set<string>();
    await forEachSession([FIXTURE], { content: 'text' }, (session) => {
      for (const item of session.items)
        if (item.text !== null && item.text.trim().length >= 12) texts.add(item.text.trim());
    });
    expect(texts.size).toBeGreaterThan(3);
    const plain = join(dir, 'plain');
    await ok(['export', FIXTURE, '--out', plain, '--host', 'h1', ...RUN]);
    const cells = (await allText(plain)).join('\n');
    const leaked = [...texts].filter((text) => cells.includes(text));
    expect(leaked).toEqual([]);
    await duck(null, async (query) => {
      const [items] = await query(
        `SELECT count(*) AS n, count(text) AS with_text, sum(chars) AS chars FROM ${table(plain, 'items')}`,
      );
      expect(items?.['n']).toBeGreaterThan(0n);
      expect(items?.['with_text']).toBe(0n);
      expect(items?.['chars']).toBeGreaterThan(0n);
    });

    const withText = join(dir, 'with-text');
    await ok(['export', FIXTURE, '--out', withText, '--host', 'h1', '--with-text', ...RUN]);
    const full = (await allText(withText)).join('\n');
    expect([...texts].filter((text) => !full.includes(text))).toEqual([]);
    await duck(null, async (query) => {
      const [run] = await query(`SELECT with_text FROM ${table(withText, 'runs')}`);
      expect(run?.['with_text']).toBe(true);
    });
  });

  it('--target adds simulated rows, compactions and flags; flags --from equals flags on the logs', async () => {
    const out = join(dir, 'replayed');
    await ok(['export', DATASET, '--out', out, '--host', 'h1', '--target', '120000', ...RUN]);
    await duck(null, async (query) => {
      const scenarios = (await query(`SELECT DISTINCT scenario FROM ${table(out, 'requests')} ORDER BY scenario`)).map(
        (r) => r['scenario'],
      );
      expect(scenarios).toEqual(['freecode@120000', 'measured', 'none', 'recorded']);
      const [compactions] = await query(`SELECT count(*) AS n FROM ${table(out, 'compactions')}`);
      expect(compactions?.['n']).toBeGreaterThan(0n);
      const [sessions] = await query(
        `SELECT count(*) FILTER (WHERE replayed) AS replayed, count(*) AS n FROM ${table(out, 'sessions')}`,
      );
      expect(sessions?.['replayed']).toBe(sessions?.['n']);
      const [run] = await query(`SELECT scenarios_json, thresholds_json FROM ${table(out, 'runs')}`);
      expect(JSON.parse(String(run?.['scenarios_json'])).map((s: { name: string }) => s.name)).toEqual([
        'recorded',
        'freecode@120000',
        'none',
      ]);
      expect(run?.['thresholds_json']).not.toBeNull();
    });
    const fromLogs = JSON.parse(
      await ok(['flags', DATASET, '--scenario', 'freecode,none', '--target', '120000', '--json']),
    ) as FlagsReport;
    const fromExport = JSON.parse(await ok(['flags', '--from', `${out}/**/*.parquet`, '--json'])) as FlagsReport;
    expect(fromLogs.flags.length).toBeGreaterThan(0);
    expect(fromExport.flags).toEqual(fromLogs.flags);
    expect(fromExport.flaggedSessions).toEqual(fromLogs.flaggedSessions);
    expect(fromExport.sessions).toBe(fromLogs.sessions);
    expect(fromExport.thresholds).toEqual(fromLogs.thresholds);
  });

  it("the README's fleet query runs unchanged on DuckDB and agrees with report --by project to the pico-dollar", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const sql = /<!-- fleet-query -->\s*```sql\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(sql).toBeDefined();
    const out = join(dir, 'bill');
    await ok(['export', DATASET, '--out', out, '--host', 'h1', ...RUN]);
    const report = JSON.parse(await ok(['report', DATASET, '--by', 'project', '--json'])) as BillReport;
    const rows = await duck(null, async (query) => {
      await query(`CREATE VIEW requests AS SELECT * FROM ${table(out, 'requests')}`);
      return query(
        `SELECT project, CAST(cache_write_usd AS VARCHAR) AS w, CAST(cost_usd AS VARCHAR) AS c, cache_write_tokens FROM (${sql ?? ''})`,
      );
    });
    expect(rows.map((row) => row['project']).sort()).toEqual(report.lines.map((line) => line.key).sort());
    for (const line of report.lines) {
      const got = rows.find((row) => row['project'] === line.key);
      const classes = [
        line.costByClassUsd.cacheWrite5m,
        line.costByClassUsd.cacheWrite1h,
        line.costByClassUsd.cacheWriteUnknownTtl,
      ];
      expect(pico(String(got?.['w'])), String(line.key)).toBe(classes.reduce((sum, usd) => sum + pico(usd), 0n));
      expect(pico(String(got?.['c'])), String(line.key)).toBe(pico(line.costUsd));
      expect(Number(got?.['cache_write_tokens']), String(line.key)).toBe(
        line.cacheWrite5mTokens + line.cacheWrite1hTokens + line.cacheWriteUnknownTtlTokens,
      );
    }
  });
});

describe('--db FILE keeps every run', () => {
  it('report twice and export once: three runs, rows added not replaced; latest_requests is the last run; every column has a comment', async () => {
    const file = join(dir, 'fleet.duckdb');
    await ok(['report', FIXTURE, '--db', file, '--host', 'h1', '--run-id', 'r1', ...RUN]);
    await ok([
      'report',
      FIXTURE,
      '--db',
      file,
      '--host',
      'h1',
      '--run-id',
      'r2',
      '--started-at',
      '2026-02-02T10:00:00Z',
    ]);
    await ok(['flags', FIXTURE, '--db', file, '--host', 'h2', '--run-id', 'r3', ...RUN]);
    await duck(file, async (query) => {
      const runs = (await query('SELECT run_id, command, host FROM runs ORDER BY run_id')).map(
        (r) => `${String(r['run_id'])}:${String(r['command'])}:${String(r['host'])}`,
      );
      expect(runs).toEqual(['r1:report:h1', 'r2:report:h1', 'r3:flags:h2']);
      const perRun = await query(
        "SELECT run_id, count(*) AS n FROM requests WHERE scenario = 'measured' GROUP BY run_id ORDER BY run_id",
      );
      expect(perRun.map((r) => r['run_id'])).toEqual(['r1', 'r2', 'r3']);
      expect(new Set(perRun.map((r) => r['n'])).size).toBe(1);
      const latest = await query('SELECT DISTINCT run_id FROM latest_requests ORDER BY run_id');
      expect(latest.map((r) => r['run_id'])).toEqual(['r2', 'r3']);
      const uncommented = await query(
        `SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name IN (${TABLES.map((t) => `'${t}'`).join(', ')}) AND (comment IS NULL OR comment = '')`,
      );
      expect(uncommented).toEqual([]);
      const tables = await query(`SELECT table_name FROM duckdb_tables() WHERE comment IS NULL OR comment = ''`);
      expect(tables).toEqual([]);
      const [types] = await query(
        'SELECT typeof(cost_usd) AS money, typeof(prompt_tokens) AS tokens, typeof(timestamp) AS t FROM requests LIMIT 1',
      );
      expect(types).toEqual({ money: 'DECIMAL(38,12)', tokens: 'BIGINT', t: 'TIMESTAMP' });
    });
  });

  it('simulate --db appends its scenarios and flags as a run', async () => {
    const file = join(dir, 'simulate.duckdb');
    await ok(['simulate', FIXTURE, '--db', file, '--host', 'h1', '--run-id', 's1', '--target', '120000', ...RUN]);
    await ok(['simulate', FIXTURE, '--db', file, '--host', 'h1', '--run-id', 's2', '--target', '120000', ...RUN]);
    await duck(file, async (query) => {
      const rows = await query(
        'SELECT run_id, count(DISTINCT scenario) AS scenarios, count(*) AS n FROM requests GROUP BY run_id ORDER BY run_id',
      );
      expect(rows.map((r) => r['run_id'])).toEqual(['s1', 's2']);
      expect(rows[0]?.['scenarios']).toBeGreaterThanOrEqual(3n);
      expect(rows[0]?.['n']).toBe(rows[1]?.['n']);
    });
  });

  it('tune --db appends the run and every point of its curves, money exact', async () => {
    const file = join(dir, 'tune.duckdb');
    const args = ['tune', FIXTURE, '--target', '80k,120k,200k', '--workers', '1'];
    const printed = JSON.parse(await ok([...args, '--json'])) as {
      overall: { results: { scenario: string; costUsd: number | null; promptTokens: number }[] };
    };
    await ok([...args, '--db', file, '--host', 'h1', '--run-id', 't1', ...RUN]);
    await duck(file, async (query) => {
      const [run] = await query("SELECT command, sessions, requests FROM runs WHERE run_id = 't1'");
      expect(run).toMatchObject({ command: 'tune', requests: 0n });
      expect(run?.['sessions']).toBeGreaterThan(0n);
      const overall = await query(
        'SELECT scenario, CAST(cost_usd AS VARCHAR) AS cost, typeof(cost_usd) AS t, prompt_tokens FROM tune_points WHERE model_group IS NULL ORDER BY scenario',
      );
      expect(overall.map((row) => row['scenario'])).toEqual(
        printed.overall.results.map((point) => point.scenario).sort(),
      );
      for (const row of overall) {
        expect(row['t']).toBe('DECIMAL(38,12)');
        const want = printed.overall.results.find((point) => point.scenario === row['scenario']);
        expect(Number(row['prompt_tokens']), String(row['scenario'])).toBe(want?.promptTokens);
        // The JSON prints a USD number (rounded at the edge); the table keeps the exact decimal.
        expect(Number(row['cost']), String(row['scenario'])).toBeCloseTo(want?.costUsd ?? Number.NaN, 9);
        expect(String(row['cost'])).toMatch(/^\d+\.\d{12}$/);
      }
      const [recommended] = await query(
        'SELECT count(*) AS n FROM tune_points WHERE model_group IS NULL AND recommended',
      );
      expect(recommended?.['n']).toBeLessThanOrEqual(1n);
    });
  });

  it('a file of the old one-run layout is refused with one line, and left as it was', async () => {
    const file = join(dir, 'old.duckdb');
    const db = await CostDb.open({ path: file, prices: loadBundledPriceTable() });
    db.close();
    const before = await readFile(file);
    const result = await cli(['report', FIXTURE, '--db', file, '--host', 'h1']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/older layout/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // The run worked on a copy: the file is byte for byte as it was, the copy is gone, no path of it is shown.
    expect((await readFile(file)).equals(before)).toBe(true);
    expect((await readdir(dir)).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(result.stderr).not.toMatch(/\.tmp/);
    await duck(file, async (query) => {
      expect(
        (
          await query("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name IN ('scenarios', 'prices', 'runs')")
        )[0]?.['n'],
      ).toBe(2n);
    });
  });
});

describe('bad input', () => {
  it('a --host that cannot be a partition folder, a --from that matches nothing, a stray Parquet file: one line each', async () => {
    const host = await cli(['export', FIXTURE, '--out', join(dir, 'x'), '--host', '../evil']);
    expect(host.code).toBe(1);
    expect(host.stderr).toMatch(/--host must be/);
    const none = await cli(['report', '--from', join(dir, 'nothing-here', '**', '*.parquet')]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no Parquet files match/);
    const both = await cli(['report', FIXTURE, '--from', dir]);
    expect(both.stderr).toMatch(/either paths or --from/);
    const needsOut = await cli(['export', FIXTURE]);
    expect(needsOut.stderr).toMatch(/--out DIR/);
    const stray = join(dir, 'stray');
    await mkdir(stray, { recursive: true });
    await duck(null, async (query) => {
      await query(`COPY (SELECT 1 AS x) TO '${join(stray, 'requests.parquet')}' (FORMAT parquet)`);
    });
    const notExport = await cli(['report', '--from', `${stray}/**/*.parquet`]);
    expect(notExport.code).toBe(1);
    expect(notExport.stderr).toMatch(/is not part of a cachecost export/);
    expect(notExport.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('sorts files into tables by their Hive path only', () => {
    expect(fleetTableOf('/x/fleet/requests/host=a/date=2026-01-01/data_0.parquet')).toBe('requests');
    expect(fleetTableOf('/x/fleet/runs/host=a/date=2026-01-01/run-1.parquet')).toBe('runs');
    expect(fleetTableOf('/x/fleet/requests/date=2026-01-01/data_0.parquet')).toBeNull();
    expect(fleetTableOf('/x/other/host=a/date=2026-01-01/data_0.parquet')).toBeNull();
    expect(fleetTableOf('/x/requests/host=a/date=2026-01-01/sub/data_0.parquet')).toBeNull();
  });
});
