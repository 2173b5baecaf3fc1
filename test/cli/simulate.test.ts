import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/app.js';
import { parseFamilies, parseTokenCount } from '../../src/cli/scenario-options.js';
import type { SimulateReport } from '../../src/report/simulate-report.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    homeDir: '/nonexistent-home',
  });
  return { code, stdout, stderr };
}

describe('cachecost simulate', () => {
  it('prints one JSON object with the scenarios, the bill, fidelity and per-scenario results', async () => {
    const { code, stdout } = await cli([
      'simulate',
      join(FIXTURES, 'home-newest'),
      '--target',
      '80000,120000',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as SimulateReport;
    expect(report.assumption).toMatch(/same items in the same order/);
    expect(report.scenarios.map((s) => s.name)).toEqual(['recorded', 'freecode@80000', 'freecode@120000', 'none']);
    const session = report.sessions[0];
    expect(session?.sessionId).toBe('7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34');
    // The bill is the log's own usage: §12.4's day total of inclusive input.
    expect(session?.recorded.promptTokens).toBe(51_480);
    expect(session?.recorded.cacheReadTokens).toBe(37_440);
    expect(session?.results.map((r) => r.scenario)).toEqual(['recorded', 'freecode@80000', 'freecode@120000', 'none']);
    expect(session?.fidelity.promptTokensErrorPct).not.toBeNull();
    // The log's compaction (FREECODE_AUTO_COMPACT_TOKENS=12000, §12) is replayed in `recorded` only.
    expect(session?.results.find((r) => r.scenario === 'recorded')?.compactions).toBe(1);
    expect(session?.results.find((r) => r.scenario === 'none')?.compactions).toBe(0);
    expect(report.totals.results).toHaveLength(4);
  });

  it('writes the four CSV tables with a header row', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-sim-'));
    const { code } = await cli(['simulate', join(FIXTURES, 'home-newest'), '--csv', dir]);
    expect(code).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['compactions.csv', 'requests.csv', 'scenarios.csv', 'sessions.csv']);
    const requests = Papa.parse<Record<string, string>>(await readFile(join(dir, 'requests.csv'), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(requests.data.filter((r) => r['scenario'] === 'measured')).toHaveLength(4);
    expect(new Set(requests.data.map((r) => r['scenario']))).toEqual(
      new Set(['measured', 'recorded', 'freecode@120000', 'none']),
    );
  });

  it('rejects a bad option value with one line and exit 1', async () => {
    const { code, stderr, stdout } = await cli(['simulate', join(FIXTURES, 'home-newest'), '--target', 'lots']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/--target expects a token count/);
  });

  it('a path that does not exist is a one-line error', async () => {
    const { code, stderr } = await cli(['simulate', '/no/such/logs']);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('parses token counts and families', () => {
    expect(parseTokenCount('120000', 'target')).toBe(120_000);
    expect(parseTokenCount('120k', 'target')).toBe(120_000);
    expect(parseTokenCount('1M', 'target')).toBe(1_000_000);
    expect(() => parseTokenCount('-5', 'target')).toThrow(/token count/);
    expect(parseFamilies([])).toEqual(['freecode', 'none']);
    expect(parseFamilies(['window-only,none', 'freecode'])).toEqual(['window-only', 'none', 'freecode']);
    expect(() => parseFamilies(['bogus'])).toThrow(/--scenario must be one of/);
  });
});
