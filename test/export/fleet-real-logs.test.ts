/**
 * A fleet of two machines made of `../shared/real-logs` (read in place): each half exported under
 * its own `--host` (with two targets replayed), then `report --from` over both must print the bill
 * `report` prints over the whole folder, to the pico-dollar and token for token (the sub-agent
 * split included), and `simulate --from` the savings summary `simulate` prints over it, figure for
 * figure. Also: the Parquet column types, and that exporting the same logs again replaces rows
 * instead of adding them.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillReport } from '../../src/report/bill-json.js';
import { cli } from '../cli/run.js';
import { duck, plain, table } from './parquet.js';
import { expectSameSummary, summaryOf } from './simulate-support.js';

const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', 'shared', 'real-logs');
const HALF_A = ['claude-code', 'swe-agent'].map((dir) => join(REAL_LOGS, dir));
const HALF_B = ['codex', 'openhands'].map((dir) => join(REAL_LOGS, dir));
const GROUPINGS = ['day', 'week', 'month', 'session', 'model', 'project'] as const;
/** The scenarios replayed at export time (the flags' comparison target among them). */
const TARGETS = ['--target', '80000,120000'];

let out = '';

async function exportHalf(paths: readonly string[], host: string, runId: string, dir = out): Promise<void> {
  const result = await cli([
    'export',
    ...paths,
    '--out',
    dir,
    '--host',
    host,
    '--run-id',
    runId,
    '--started-at',
    '2026-02-01T10:00:00Z',
    ...TARGETS,
  ]);
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code).toBe(0);
}

async function bill(args: readonly string[]): Promise<BillReport> {
  const result = await cli(['report', '--json', ...args]);
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as BillReport;
}

/** What must match: every line and the total (exact USD strings, every token count, the sub-agent split), unpriced models, exclusions. */
function billOf(report: BillReport): unknown {
  return {
    lines: report.lines,
    total: report.total,
    unpricedModels: report.unpricedModels,
    excluded: report.excluded,
  };
}

describe.skipIf(!existsSync(REAL_LOGS))('a fleet of two machines over ../shared/real-logs', () => {
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'cachecost-fleet-'));
    await exportHalf(HALF_A, 'alpha', 'run-a');
    await exportHalf(HALF_B, 'beta', 'run-b');
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('report --from over both exports equals report over the whole folder, for every grouping', async () => {
    for (const by of GROUPINGS) {
      const local = await bill([REAL_LOGS, '--by', by]);
      const fleet = await bill(['--from', `${out}/**/*.parquet`, '--by', by]);
      expect(local.total.requests).toBeGreaterThan(1000);
      expect(billOf(fleet), by).toEqual(billOf(local));
    }
  });

  it("report --from has the exact sub-agent split: exports carry each request's agent id", async () => {
    const local = await bill([REAL_LOGS]);
    const fleet = await bill(['--from', out]);
    // Claude Code sub-agents are in the real logs: a split of 0 would not test anything.
    expect(local.total.subagentRequests).toBeGreaterThan(0);
    expect(local.total.subagentCostUsd).not.toBe('0');
    const split = (report: BillReport) =>
      [report.total, ...report.lines].map((line) => [
        line.subagentRequests,
        line.subagentCostUsd,
        line.subagentCostComplete,
        line.ownCostUsd,
      ]);
    expect(split(fleet)).toEqual(split(local));
  });

  it('simulate --from over both exports prints the summary simulate prints over the whole folder', async () => {
    const local = await summaryOf([REAL_LOGS, ...TARGETS]);
    const fleet = await summaryOf(['--from', out, ...TARGETS]);
    expectSameSummary(fleet, local);
    const results = local.report.totals.results;
    // Figures that would hide a missing column if they were all 0.
    expect(results.some((result) => result.compactions > 0)).toBe(true);
    expect(local.report.sessions.some((s) => s.results.some((result) => result.flags.length > 0))).toBe(true);
    expect(local.report.sessions.filter((s) => s.fidelity.modelledRequests > 0).length).toBeGreaterThan(10);
    // Without scenario options: every scenario the exports replayed, here the same ones in the same order.
    expectSameSummary(await summaryOf(['--from', out]), local);
  });

  it('simulate --from refuses scenarios the exports lack and options that need logs, in one line', async () => {
    const refused = async (args: readonly string[], message: RegExp): Promise<void> => {
      const result = await cli(['simulate', ...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stdout).toBe('');
    };
    await refused(
      ['--from', out, '--target', '90000'],
      /no export replayed scenario freecode@90000 \(they hold recorded, freecode@80000, freecode@120000, none\)/,
    );
    await refused(
      ['--from', out, '--ttl', '1h'],
      /scenario recorded was exported with other parameters by alpha \(run run-a\), beta \(run run-b\)/,
    );
    await refused(['--from', out, REAL_LOGS], /give either paths or --from, not both/);
    await refused(['--from', out, '--db', join(out, 'x.duckdb')], /--db records a run over logs/);
    await refused(['--from', out, '--pricing', join(out, 'prices.json')], /--pricing cannot apply over --from/);
  });

  it('report --from takes the report options as a report over logs does: zone, breakdown, order, filters', async () => {
    const byProject = await bill([REAL_LOGS, '--by', 'project']);
    const project = byProject.lines.find((line) => line.key !== null)?.key ?? '';
    const text =
      project
        .split(/[\\/]/)
        .filter((part) => part !== '')
        .at(-1) ?? '';
    expect(text).not.toBe('');
    const session = (await bill([REAL_LOGS, '--by', 'session'])).lines[0]?.key?.slice(0, 8) ?? '';
    const optionSets = [
      ['--by', 'week', '-z', 'America/Los_Angeles', '--breakdown'],
      ['--by', 'month', '--order', 'desc', '--timezone', 'Asia/Tokyo'],
      ['--by', 'day', '--project', text],
      ['--by', 'model', '--session', session, '--breakdown'],
      ['--by', 'host', '--breakdown', '--project', text],
    ];
    for (const options of optionSets) {
      const local = await bill([REAL_LOGS, ...options]);
      const fleet = await bill(['--from', out, ...options]);
      if (options.includes('host')) {
        // Locally every line has one host; over the exports the lines are the machines.
        expect(fleet.total, options.join(' ')).toEqual(local.total);
        continue;
      }
      expect(local.total.requests, options.join(' ')).toBeGreaterThan(0);
      expect(fleet.timeZone, options.join(' ')).toBe(local.timeZone);
      expect(billOf(fleet), options.join(' ')).toEqual(billOf(local));
    }
    const filtered = await bill(['--from', out, '--project', text]);
    const all = await bill(['--from', out]);
    expect(filtered.total.requests).toBeLessThan(all.total.requests);
  });

  it('--by host has one line per machine, each equal to that half read locally, and the same total', async () => {
    const fleet = await bill(['--from', out, '--by', 'host']);
    const [alpha, beta] = await Promise.all([
      bill([...HALF_A, '--by', 'host', '--host', 'alpha']),
      bill([...HALF_B, '--by', 'host', '--host', 'beta']),
    ]);
    const byCost = [...alpha.lines, ...beta.lines].sort((a, b) =>
      a.costUsd === null ? 1 : b.costUsd === null ? -1 : Number(b.costUsd) - Number(a.costUsd),
    );
    expect(fleet.lines).toEqual(byCost);
    expect(fleet.total).toEqual((await bill([REAL_LOGS, '--by', 'host'])).total);
    expect(fleet.lines.map((line) => line.key).sort()).toEqual(['alpha', 'beta']);
  });

  it('writes money as DECIMAL(38,12), tokens as BIGINT, times as TIMESTAMP, dates as DATE', async () => {
    await duck(null, async (query) => {
      const types = async (name: string): Promise<Record<string, string>> =>
        Object.fromEntries(
          (await query(`DESCRIBE SELECT * FROM ${table(out, name)}`)).map((row) => [
            String(row['column_name']),
            String(row['column_type']),
          ]),
        );
      const requests = await types('requests');
      for (const column of [
        'cost_usd',
        'cost_input_usd',
        'cost_cache_read_usd',
        'cost_cache_write_5m_usd',
        'cost_cache_write_1h_usd',
        'cost_output_usd',
      ]) {
        expect(requests[column], column).toBe('DECIMAL(38,12)');
      }
      for (const column of [
        'prompt_tokens',
        'cache_read_tokens',
        'cache_write_5m_tokens',
        'cache_write_1h_tokens',
        'cache_write_unknown_ttl_tokens',
        'uncached_input_tokens',
        'output_tokens',
      ]) {
        expect(requests[column], column).toBe('BIGINT');
      }
      expect(requests['timestamp']).toBe('TIMESTAMP');
      expect(requests['date']).toBe('DATE');
      expect(requests['host']).toBe('VARCHAR');
      const sessions = await types('sessions');
      expect([sessions['first_timestamp'], sessions['last_timestamp']]).toEqual(['TIMESTAMP', 'TIMESTAMP']);
      expect(sessions['models']).toBe('VARCHAR[]');
      const runs = await types('runs');
      expect(runs['started_at']).toBe('TIMESTAMP');
      // In the file itself (not only as DuckDB reads it back): a Parquet DECIMAL logical type, never a DOUBLE.
      const [file] = await query(`SELECT file FROM glob('${out}/requests/**/*.parquet') LIMIT 1`);
      const physical = await query(
        `SELECT name, type, logical_type FROM parquet_schema('${String(file?.['file'])}') WHERE name LIKE 'cost_%' OR name = 'timestamp'`,
      );
      for (const column of physical) {
        if (column['name'] === 'timestamp') expect(String(column['logical_type'])).toMatch(/^TimestampType/);
        else expect(String(column['logical_type']), String(column['name'])).toBe('DecimalType(scale=12, precision=38)');
      }
      // No money column anywhere is floating point.
      const doubles = (await query(`DESCRIBE SELECT * FROM ${table(out, 'requests')}`)).filter((row) =>
        /DOUBLE|FLOAT|REAL/.test(String(row['column_type'])),
      );
      expect(doubles).toEqual([]);
    });
  });

  it("exporting the same logs again replaces that host's partitions: same rows, no duplicates; runs keeps both runs", async () => {
    const rowsOf = async (): Promise<Record<string, string[]>> =>
      duck(null, async (query) => {
        const result: Record<string, string[]> = {};
        for (const name of ['requests', 'sessions', 'items'])
          result[name] = plain(await query(`SELECT * EXCLUDE (run_id) FROM ${table(out, name)}`));
        return result;
      });
    const before = await rowsOf();
    await exportHalf(HALF_A, 'alpha', 'run-a2');
    const after = await rowsOf();
    for (const name of Object.keys(before)) {
      expect(after[name]?.length, name).toBe(before[name]?.length);
      expect(after[name], name).toEqual(before[name]);
    }
    await duck(null, async (query) => {
      const runIds = (await query(`SELECT DISTINCT run_id FROM ${table(out, 'requests')} WHERE host = 'alpha'`)).map(
        (row) => row['run_id'],
      );
      expect(runIds).toEqual(['run-a2']);
      const runs = (await query(`SELECT host, run_id FROM ${table(out, 'runs')} ORDER BY run_id`)).map(
        (row) => `${String(row['host'])}/${String(row['run_id'])}`,
      );
      expect(runs).toEqual(['alpha/run-a', 'alpha/run-a2', 'beta/run-b']);
    });
    // And the fleet bill is unchanged.
    expect(billOf(await bill(['--from', out, '--by', 'day']))).toEqual(billOf(await bill([REAL_LOGS, '--by', 'day'])));
  });
});
