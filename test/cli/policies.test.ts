/**
 * The policies of the field end to end: `simulate` replays every session of `datasets/freecode`
 * and `../shared/real-logs` (read in place) under FreeCode, observation masking, clear-tool-uses,
 * opencode and no compaction, into the JSON, the CSV tables, the DuckDB file and the HTML report;
 * `tune` on the runaway session prints one curve per family and a recommendation across them.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { TuneReportJson } from '../../src/report/tune-json.js';
import { cli } from './run.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REAL_LOGS = join(ROOT, '..', 'shared', 'real-logs');
const FAMILIES = 'freecode,observation-masking,clear-tool-uses,opencode,none';
const SCENARIOS = [
  'recorded',
  'freecode@120000',
  'observation-masking@10',
  'clear-tool-uses@100000',
  'opencode@40000',
  'none',
];
/** The runaway session, as `npm run reports` reads it. */
const RUNAWAY = [
  join(ROOT, 'datasets/freecode/rollout/sessions/4ba54e41-5bbb-4879-a2f5-6406b85609b4'),
  join(ROOT, 'datasets/freecode/sessions/home__mara__src__ledger_h_sync/4ba54e41-5bbb-4879-a2f5-6406b85609b4'),
];

type SimulateJson = {
  readonly sessions: ReadonlyArray<{
    readonly sessionId: string;
    readonly results: ReadonlyArray<{ readonly scenario: string }>;
  }>;
};

async function simulateEverywhere(path: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cachecost-policies-'));
  const { code, stdout } = await cli([
    'simulate',
    path,
    '--scenario',
    FAMILIES,
    '--json',
    '--csv',
    join(dir, 'csv'),
    '--db',
    join(dir, 'run.duckdb'),
    '--html',
    join(dir, 'report.html'),
  ]);
  expect(code).toBe(0);
  const report = JSON.parse(stdout) as SimulateJson;
  expect(report.sessions.length).toBeGreaterThan(0);
  for (const session of report.sessions)
    expect(session.results.map((s) => s.scenario)).toEqual(expect.arrayContaining(SCENARIOS));
  const sessionsCsv = Papa.parse<Record<string, string>>(await readFile(join(dir, 'csv', 'sessions.csv'), 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  for (const scenario of SCENARIOS)
    expect(sessionsCsv.filter((row) => row['scenario'] === scenario)).toHaveLength(report.sessions.length);
  const scenariosCsv = Papa.parse<Record<string, string>>(await readFile(join(dir, 'csv', 'scenarios.csv'), 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  expect(scenariosCsv.map((row) => row['scenario']).sort()).toEqual([...SCENARIOS].sort());
  const masking = scenariosCsv.find((row) => row['scenario'] === 'observation-masking@10');
  expect(JSON.parse(masking?.['params_json'] ?? '{}')).toMatchObject({
    editing: { kind: 'observation-masking', keepToolResults: 10 },
  });
  const html = await readFile(join(dir, 'report.html'), 'utf8');
  for (const scenario of SCENARIOS) expect(html).toContain(scenario);
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(join(dir, 'run.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await db.connect();
  const rows = await connection.runAndReadAll(
    'select scenario, count(distinct session_id) as n from requests group by scenario',
  );
  const sessionsPerScenario = new Map(rows.getRowObjects().map((row) => [String(row['scenario']), Number(row['n'])]));
  for (const scenario of SCENARIOS) expect(sessionsPerScenario.get(scenario)).toBe(report.sessions.length);
  connection.closeSync();
}

describe('the policy families through simulate', () => {
  it('datasets/freecode: every session under every family, in JSON, CSV, DuckDB and HTML', async () => {
    await simulateEverywhere(join(ROOT, 'datasets', 'freecode'));
  }, 600_000);

  it.skipIf(!existsSync(REAL_LOGS))(
    '../shared/real-logs: every replayable session under every family',
    async () => {
      await simulateEverywhere(REAL_LOGS);
    },
    600_000,
  );
});

describe('the policy families through tune', () => {
  it('the runaway session: one curve per family and a recommendation across them', async () => {
    const { code, stdout } = await cli([
      'tune',
      ...RUNAWAY,
      '--scenario',
      'observation-masking,clear-tool-uses,freecode',
      '--workers',
      '1',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as TuneReportJson;
    const curves = report.overall.curves;
    expect(curves.map((curve) => [curve.family, curve.knob])).toEqual([
      ['observation-masking', 'keep-results'],
      ['clear-tool-uses', 'clear-trigger'],
      ['freecode', 'target'],
    ]);
    expect(curves[0]?.targetTokens).toEqual([1, 2, 3, 4, 6, 8, 10, 15, 20]);
    // The recommendation across families is the cheapest of the curves' own choices.
    const chosen = curves.flatMap((curve) => (curve.recommendation.kind === 'target' ? [curve.recommendation] : []));
    expect(chosen.length).toBeGreaterThan(0);
    // Money is an exact decimal USD string; the cheapest string is compared as it is printed.
    const cheapest = chosen.reduce((best, r) => (Number(r.costUsd) < Number(best.costUsd) ? r : best)).costUsd;
    const overall = report.overall.recommendation;
    expect(overall.kind === 'target' && overall.costUsd).toBe(cheapest);
    const text = await cli([
      'tune',
      ...RUNAWAY,
      '--scenario',
      'observation-masking,clear-tool-uses,freecode',
      '--workers',
      '1',
    ]);
    for (const series of ['observation-masking', 'clear-tool-uses', 'freecode'])
      expect(text.stdout).toContain(`best on ${series}: `);
    expect(text.stdout).toMatch(
      /best on observation-masking: (mask tool results older than \d+|keep the recorded policy)/,
    );
    expect(text.stdout).toContain('  recommended: ');
  }, 600_000);
});
