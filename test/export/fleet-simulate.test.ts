/**
 * `simulate --from` over a fleet of two machines: a CI runner with the FreeCode dataset (compactions,
 * hook-blocked attempts, turns that fail at a small window) and a laptop with the Codex half of
 * `../shared/real-logs` (read in place), each exported with the same scenario options. The summary
 * over both exports must equal `simulate` over both inputs, figure for figure, in JSON, text and
 * CSV; and what the exports cannot answer is a one-line error or a notice, never a partial saving.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillReport } from '../../src/report/bill-json.js';
import { cli } from '../cli/run.js';
import { duck } from './parquet.js';
import type { Summary } from './simulate-support.js';
import { expectSameSummary, summaryOf } from './simulate-support.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FREECODE = join(ROOT, 'datasets', 'freecode');
const REAL_LOGS = join(ROOT, '..', 'shared', 'real-logs');
const CODEX = join(REAL_LOGS, 'codex');
const OPENHANDS = join(REAL_LOGS, 'openhands');
/** A small window, so that turns fail and compactions are blocked; one-hour cache writes everywhere. */
const OPTIONS = ['--target', '30000', '--window', '60000', '--ttl', '1h'];

let dir = '';
/** `simulate` over both inputs, with its CSV tables in `csv-local`; over their exports, in `csv-fleet`. */
let local: Summary;
let fromExports: Summary;

async function exportTo(out: string, paths: readonly string[], host: string, options: readonly string[]) {
  const result = await cli([
    'export',
    ...paths,
    '--out',
    out,
    '--host',
    host,
    '--run-id',
    `run-${host}`,
    '--started-at',
    '2026-02-01T10:00:00Z',
    ...options,
  ]);
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code, result.stderr).toBe(0);
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n');
}

describe.skipIf(!existsSync(REAL_LOGS))('simulate --from over two machines', () => {
  const fleet = () => join(dir, 'fleet');
  const csv = (csvDir: string) => ['--csv', csvDir, '--fidelity-csv', join(csvDir, 'fidelity.csv')];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cachecost-fleet-sim-'));
    await exportTo(fleet(), [FREECODE], 'ci-runner', OPTIONS);
    await exportTo(fleet(), [CODEX], 'laptop', OPTIONS);
    local = await summaryOf([FREECODE, CODEX, ...OPTIONS, ...csv(join(dir, 'csv-local'))]);
    fromExports = await summaryOf(['--from', fleet(), ...OPTIONS, ...csv(join(dir, 'csv-fleet'))]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('equals simulate over both inputs: every session, scenario, saving, failed turn and fidelity measure', async () => {
    expectSameSummary(fromExports, local);
    // Without scenario options: every exported scenario, the flags' comparison target (which the export
    // always replays) among them; the others' figures as above.
    const every = await summaryOf(['--from', `${fleet()}/**/*.parquet`]);
    const names = local.report.scenarios.map((scenario) => scenario.name);
    expect(every.report.scenarios.map((scenario) => scenario.name)).toEqual([...names, 'freecode@120000']);
    const sansFlags = (results: readonly { readonly scenario: string; readonly flags: readonly string[] }[]) =>
      results.filter((result) => names.includes(result.scenario)).map((result) => ({ ...result, flags: [] }));
    expect(sansFlags(every.report.totals.results)).toEqual(sansFlags(local.report.totals.results));
    const squeezed = local.report.totals.results.find((result) => result.scenario.startsWith('freecode@30000'));
    // The figures only a replay knows, non-zero here, so that a column lost on the way would show.
    expect(squeezed?.failedTurns).toBeGreaterThan(0);
    expect(squeezed?.blockedCompactions).toBeGreaterThan(0);
    expect(squeezed?.rejectedOverflows).toBeGreaterThan(0);
    expect(new Set(local.report.sessions.map((s) => s.source))).toEqual(new Set(['freecode', 'codex']));
  });

  it('writes the same CSV tables and fidelity CSV as simulate over the inputs', async () => {
    const localDir = join(dir, 'csv-local');
    const fleetDir = join(dir, 'csv-fleet');
    for (const name of ['sessions', 'scenarios']) {
      expect(await lines(join(fleetDir, `${name}.csv`)), name).toEqual(await lines(join(localDir, `${name}.csv`)));
    }
    // Rows tied on (session, scenario, request) may come in another order; the same rows either way.
    for (const name of ['requests', 'compactions', 'fidelity']) {
      const local = (await lines(join(localDir, `${name}.csv`))).sort();
      expect(local.length, name).toBeGreaterThan(2);
      expect((await lines(join(fleetDir, `${name}.csv`))).sort(), name).toEqual(local);
    }
  });

  it('writes the HTML report with every session over the exports', async () => {
    const html = join(dir, 'fleet.html');
    const result = await cli(['simulate', '--from', fleet(), '--html', html, ...OPTIONS]);
    expect(result.code, result.stderr).toBe(0);
    const page = await readFile(html, 'utf8');
    for (const session of local.report.sessions) expect(page).toContain(session.sessionId);
  });

  it('shows only scenarios every export replayed alike, and refuses one an export lacks', async () => {
    const mixed = join(dir, 'mixed');
    await exportTo(mixed, [OPENHANDS], 'one', ['--target', '30000,60000', '--window', '60000']);
    await exportTo(mixed, [FREECODE], 'two', ['--target', '30000', '--window', '60000']);
    const all = await cli(['simulate', '--from', mixed, '--json']);
    expect(all.code, all.stderr).toBe(0);
    const shown = (JSON.parse(all.stdout) as { scenarios: { name: string }[] }).scenarios.map((s) => s.name);
    expect(shown).toEqual(['recorded', 'freecode@30000,window=60000', 'none,window=60000', 'freecode@120000']);
    expect(all.stderr).toMatch(
      /scenario\(s\) freecode@60000,window=60000 left out: not replayed alike by every export/,
    );
    const asked = await cli(['simulate', '--from', mixed, '--target', '60000', '--window', '60000']);
    expect(asked.code).toBe(1);
    expect(asked.stderr.trim()).toMatch(
      /^cachecost: --from: scenario freecode@60000,window=60000 is not in the export of two \(run run-two\); export those logs again with it/,
    );
  });

  it('an export written before agent_id and modelled existed: the sub-agent split is unknown, simulate refuses', async () => {
    const old = join(dir, 'old');
    await exportTo(old, [OPENHANDS], 'one', ['--target', '30000']);
    const current = JSON.parse((await cli(['report', '--from', old, '--json'])).stdout) as BillReport;
    expect(current.total.subagentRequests).toBe(0);
    // The requests files as the earlier layout wrote them: without the two columns.
    await duck(null, async (query) => {
      for (const row of await query(`SELECT file FROM glob('${old}/requests/**/*.parquet')`)) {
        const file = String(row['file']);
        await query(
          `COPY (SELECT * EXCLUDE (agent_id, modelled) FROM read_parquet('${file}', hive_partitioning = false)) TO '${file}.tmp' (FORMAT PARQUET)`,
        );
        await rename(`${file}.tmp`, file);
      }
    });
    const report = await cli(['report', '--from', old, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const bill = JSON.parse(report.stdout) as BillReport;
    // Unknown, never 0; the bill itself unchanged.
    expect([bill.total.subagentRequests, bill.total.subagentCostUsd, bill.total.ownCostUsd]).toEqual([
      null,
      null,
      null,
    ]);
    expect(bill.total.costUsd).toBe(current.total.costUsd);
    const simulate = await cli(['simulate', '--from', old]);
    expect(simulate.code).toBe(1);
    expect(simulate.stderr.trim().split('\n')).toHaveLength(1);
    expect(simulate.stderr).toMatch(
      /these exports lack what simulate reads \(requests\.modelled\).*export the logs again/,
    );
  });

  it('says in one line that an export of the bill alone has no savings to show', async () => {
    const bill = join(dir, 'bill');
    await exportTo(bill, [OPENHANDS], 'one', []);
    const result = await cli(['simulate', '--from', bill]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /no exported session was replayed, so there are no savings to show; export with --target/,
    );
  });
});
