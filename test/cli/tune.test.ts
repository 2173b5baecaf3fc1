import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Papa from 'papaparse';
import { formatPicoUsd, parseUsdToPico } from '../../src/cost/money.js';
import { describe, expect, it } from 'vitest';
import { parseGridList, parseTtls } from '../../src/cli/commands/tune.js';
import type { TuneReportJson } from '../../src/report/tune-json.js';
import { TUNE_CSV_COLUMNS } from '../../src/report/tune-csv.js';
import { cli } from './run.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');
const HOME = join(FIXTURES, 'home-newest');
// One worker: the CLI runs from the TypeScript sources here, where no compiled worker exists.
const FAST = ['--workers', '1', '--target', '6000..12000:3000,20000'];

describe('cachecost tune', () => {
  it('prints one JSON object: per model and overall, every scenario, the curves, the recommendation', async () => {
    const { code, stdout, stderr } = await cli(['tune', HOME, ...FAST, '--buffer', '1000', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as TuneReportJson;
    expect(report.assumption).toMatch(/same items in the same order/);
    expect(report.scenarios.map((s) => s.name)).toEqual([
      'recorded',
      'freecode@6000,buffer=1000',
      'freecode@9000,buffer=1000',
      'freecode@12000,buffer=1000',
      'freecode@20000,buffer=1000',
      'none',
    ]);
    expect(report.models.map((g) => g.model)).toEqual([report.models[0]?.model]);
    expect(report.overall.model).toBeNull();
    expect(report.overall.results.map((r) => r.scenario)).toEqual(report.scenarios.map((s) => s.name));
    const curve = report.overall.curves[0];
    expect(curve?.series).toBe('freecode,buffer=1000');
    expect(curve?.targetTokens).toEqual([6_000, 9_000, 12_000, 20_000]);
    expect(['target', 'keep-recorded']).toContain(report.overall.recommendation.kind);
    expect(report.overall.recommendation.reason.length).toBeGreaterThan(20);
    for (const r of report.overall.results) {
      const parts = r.costBreakdownUsd;
      // Exact decimal strings: the parts add up to the cost to the pico-dollar.
      const sum = [parts.cacheRead, parts.cacheWrite, parts.uncachedInput, parts.output, parts.summarizer].reduce(
        (a, p) => a + parseUsdToPico(p),
        0n,
      );
      expect(r.costUsd === null ? null : formatPicoUsd(sum)).toBe(r.costUsd);
    }
    expect(report.overall.results.find((r) => r.scenario === 'recorded')?.compactions).toBe(1);
  });

  it('writes the CSV (one row per group and scenario) and an SVG chart; prints the table', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-tune-'));
    const csvPath = join(dir, 'tune.csv');
    const chartPath = join(dir, 'tune.svg');
    const { code, stdout } = await cli(['tune', HOME, ...FAST, '--csv', csvPath, '--chart', chartPath]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/knee of freecode/);
    expect(stdout).toMatch(/recommended: /);
    const csv = Papa.parse<Record<string, string>>(await readFile(csvPath, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(csv.meta.fields).toEqual(TUNE_CSV_COLUMNS.map((c) => c.header));
    // One model: its group and the (all) group, 6 scenarios each.
    expect(csv.data).toHaveLength(12);
    expect(csv.data.filter((r) => r['group'] === '(all)').map((r) => r['scenario'])).toHaveLength(6);
    expect(csv.data.filter((r) => r['recommended'] === 'true').length).toBeLessThanOrEqual(2);
    const svg = await readFile(chartPath, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toMatch(/compaction target \(tokens\)/);
  });

  it('rejects a bad grid or output with one line and exit 1', async () => {
    for (const argv of [
      ['--target', '400k..40k:20k'],
      ['--target', '40k..400k'],
      ['--target', '40k..400k:0'],
      ['--target', '1..10000000:1'],
      ['--target', '0,120000'],
      ['--ttl', '2h'],
      ['--workers', '0'],
      ['--tolerance', '-1'],
      ['--chart', 'out.png'],
      ['--chart', join(tmpdir(), 'x.svg'), '--chart-model', 'no-such-model'],
    ]) {
      const { code, stderr, stdout } = await cli(['tune', HOME, '--workers', '1', '--target', '12000', ...argv]);
      expect({ argv, code }).toEqual({ argv, code: 1 });
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('parses grid axes: values, ranges with a step, token suffixes', () => {
    expect(parseGridList('40000..400000:20000', 'target', { allowZero: false })).toHaveLength(19);
    expect(parseGridList('120k,40k..80k:20k,60000', 'target', { allowZero: false })).toEqual([
      40_000, 60_000, 80_000, 120_000,
    ]);
    expect(parseGridList('0,8000', 'buffer', { allowZero: true })).toEqual([0, 8_000]);
    expect(parseTtls('5m,1h,5m')).toEqual(['5m', '1h']);
    // Checked against a deliberate bug: `value < end` in the range loop.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (start, step, steps) => {
          const end = start + step * steps;
          const values = parseGridList(`${start}..${end}:${step}`, 'target', { allowZero: false });
          expect(values).toHaveLength(steps + 1);
          expect(values.at(-1)).toBe(end);
        },
      ),
    );
  });
});
