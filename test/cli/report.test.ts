/**
 * `cachecost report` through the real CLI: groupings, inclusive UTC --since/--until, the JSON
 * shape, CSV through the shared writer (formula escaping), bad option values. Claude Code logs are
 * written to a temp dir by the test (small hand-made lines), FreeCode from the fixtures.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { billWindow, parseUtcDate } from '../../src/usecases/bill-window.js';
import type { BillReport } from '../../src/report/bill-json.js';
import { cli } from './run.js';

const FREECODE = join(import.meta.dirname, '..', 'fixtures', 'freecode', 'home-newest');

type Line = { session: string; cwd: string; at: string; id: string; model: string; usage: Record<string, unknown> };

function assistant(l: Line): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `u-${l.id}`,
    parentUuid: null,
    isSidechain: false,
    sessionId: l.session,
    version: '2.1.87',
    cwd: l.cwd,
    timestamp: l.at,
    requestId: `req_${l.id}`,
    message: {
      id: `msg_${l.id}`,
      type: 'message',
      role: 'assistant',
      model: l.model,
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: l.usage,
    },
  });
}

const S1 = '11111111-0000-4000-8000-000000000001';
const S2 = '22222222-0000-4000-8000-000000000002';
// claude-sonnet-4-5: in $3, read $0.30, 5m $3.75, 1h $6, out $15 (per MTok).
const split = (w5m: number, w1h: number) => ({
  cache_creation_input_tokens: w5m + w1h,
  cache_creation: { ephemeral_5m_input_tokens: w5m, ephemeral_1h_input_tokens: w1h },
});
const LINES: Line[] = [
  // S1 (/work/alpha): 23:59:59.999 on Jan 1 and 00:00:00.000 on Jan 2 (UTC): one request each side of midnight.
  // 1,000×3 + 10,000×0.3 + 1,000×6 + 100×15 = 3,000 + 3,000 + 6,000 + 1,500 = 13,500 µ$
  {
    session: S1,
    cwd: '/work/alpha',
    at: '2026-01-01T23:59:59.999Z',
    id: 'a',
    model: 'claude-sonnet-4-5-20250929',
    usage: { input_tokens: 1_000, cache_read_input_tokens: 10_000, ...split(0, 1_000), output_tokens: 100 },
  },
  // 2,000×3.75 + 200×15 = 7,500 + 3,000 = 10,500 µ$
  {
    session: S1,
    cwd: '/work/alpha',
    at: '2026-01-02T00:00:00.000Z',
    id: 'b',
    model: 'claude-sonnet-4-5-20250929',
    usage: { input_tokens: 0, cache_read_input_tokens: 0, ...split(2_000, 0), output_tokens: 200 },
  },
  // S2 (project "=HYPERLINK(1)", a name a spreadsheet would run): Jan 3, a model nobody prices.
  {
    session: S2,
    cwd: '=HYPERLINK(1)',
    at: '2026-01-03T12:00:00.000Z',
    id: 'c',
    model: '=cmd|evil',
    usage: { input_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 2 },
  },
];

let home = '';
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cachecost-report-'));
  for (const [dir, session] of [
    ['-work-alpha', S1],
    ['-HYPERLINK-1-', S2],
  ] as const) {
    await mkdir(join(home, 'projects', dir), { recursive: true });
    const lines = LINES.filter((l) => l.session === session).map(assistant);
    await writeFile(join(home, 'projects', dir, `${session}.jsonl`), `${lines.join('\n')}\n`);
  }
});

async function json(args: string[]): Promise<BillReport> {
  const { code, stdout, stderr } = await cli(['report', home, '--json', ...args]);
  expect(stderr).not.toMatch(/internal error/);
  expect(code).toBe(0);
  return JSON.parse(stdout) as BillReport;
}

describe('cachecost report', () => {
  it('groups by UTC day: a request at 23:59:59.999Z and one at 00:00Z fall on two days', async () => {
    const report = await json(['--by', 'day']);
    expect(report.lines.map((l) => [l.key, l.requests, l.costUsd])).toEqual([
      ['2026-01-01', 1, '0.0135'],
      ['2026-01-02', 1, '0.0105'],
      ['2026-01-03', 1, null],
    ]);
    expect(report.total).toMatchObject({
      requests: 3,
      costUsd: '0.024',
      costComplete: false,
      unpricedRequests: 1,
      unpricedTokens: 42,
    });
    expect(report.notes[0]).toMatch(/UTC/);
  });

  it('--since/--until are inclusive UTC days', async () => {
    const onlyJan2 = await json(['--since', '2026-01-02', '--until', '2026-01-02']);
    expect(onlyJan2.lines.map((l) => l.key)).toEqual(['2026-01-02']);
    expect(onlyJan2.total.costUsd).toBe('0.0105');
    const fromJan2 = await json(['--since', '2026-01-02']);
    expect(fromJan2.lines.map((l) => l.key)).toEqual(['2026-01-02', '2026-01-03']);
    const untilJan1 = await json(['--until', '2026-01-01']);
    expect(untilJan1.lines.map((l) => l.key)).toEqual(['2026-01-01']);
    expect(untilJan1.since).toBeNull();
    expect(untilJan1.until).toBe('2026-01-01');
  });

  it('groups by session, model and project; the total is the same whatever the grouping', async () => {
    const bySession = await json(['--by', 'session']);
    expect(bySession.lines.map((l) => [l.key, l.requests])).toEqual([
      [S1, 2],
      [S2, 1],
    ]);
    const byModel = await json(['--by', 'model']);
    expect(byModel.lines.map((l) => l.key)).toEqual(['claude-sonnet-4-5-20250929', '=cmd|evil']);
    const byProject = await json(['--by', 'project']);
    expect(byProject.lines).toHaveLength(2);
    expect(byProject.lines[0]?.costUsd).toBe('0.024');
    for (const report of [bySession, byModel, byProject]) expect(report.total).toEqual(bySession.total);
  });

  it('prints the JSON shape: classes, the 1h write apart, exact USD strings, costComplete', async () => {
    const report = await json(['--by', 'session']);
    expect(Object.keys(report)).toEqual([
      'by',
      'timeZone',
      'since',
      'until',
      'notes',
      'lines',
      'total',
      'unpricedModels',
      'excluded',
      'issues',
    ]);
    expect(report.lines[0]).toMatchObject({
      key: S1,
      requests: 2,
      uncachedInputTokens: 1_000,
      cacheReadTokens: 10_000,
      cacheWrite5mTokens: 2_000,
      cacheWrite1hTokens: 1_000,
      cacheWriteUnknownTtlTokens: 0,
      outputTokens: 300,
      promptTokens: 14_000,
      costUsd: '0.024',
      costComplete: true,
      costByClassUsd: {
        uncachedInput: '0.003',
        cacheRead: '0.003',
        cacheWrite5m: '0.0075',
        cacheWrite1h: '0.006',
        cacheWriteUnknownTtl: '0',
        output: '0.0045',
      },
      firstRequestAt: '2026-01-01T23:59:59.999Z',
    });
    expect(report.lines[0]?.cacheHitRatePct).toBeCloseTo((100 * 10_000) / 14_000, 9);
    expect(report.unpricedModels).toEqual([{ model: '=cmd|evil', requests: 1, tokens: 42 }]);
    expect(report.excluded).toEqual({
      totalsOnlySessions: 0,
      requestsWithoutUsage: 0,
      undatedRequestsOutsideWindow: 0,
    });
  });

  it('writes CSV through the shared writer: formula-looking names are escaped, unpriced cost is empty, a total row ends it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-report-csv-'));
    const file = join(dir, 'bill.csv');
    const { code, stdout } = await cli(['report', home, '--by', 'model', '--csv', file]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const text = await readFile(file, 'utf8');
    const rows = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => [r['row'], r['model']])).toEqual([
      ['group', 'claude-sonnet-4-5-20250929'],
      ['group', "'=cmd|evil"],
      ['total', ''],
    ]);
    expect(rows[1]?.['cost_usd']).toBe('');
    expect(rows[1]?.['unpriced_tokens']).toBe('42');
    expect(rows[2]?.['cost_usd']).toBe('0.024');
    expect(rows[2]?.['cost_complete']).toBe('false');
  });

  it('prints a table with a total row and the notes; FreeCode writes without a TTL split show as unknown TTL', async () => {
    const { code, stdout } = await cli(['report', FREECODE]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Day/);
    expect(stdout).toMatch(/│ Total/);
    expect(stdout).toMatch(/priced at the 5m rate/);
    const report = JSON.parse((await cli(['report', FREECODE, '--json'])).stdout) as BillReport;
    expect(report.total.cacheWriteUnknownTtlTokens).toBeGreaterThan(0);
    expect(
      report.total.cacheWrite5mTokens +
        report.total.cacheWrite1hTokens +
        report.total.cacheWriteUnknownTtlTokens +
        report.total.cacheReadTokens +
        report.total.uncachedInputTokens,
    ).toBe(report.total.promptTokens);
  });

  it('rejects bad dates and an empty window with one line and exit 1', async () => {
    for (const args of [
      ['--since', '2026-02-30'],
      ['--until', '01/02/2026'],
      ['--since', '2026-01-03', '--until', '2026-01-02'],
    ]) {
      const { code, stdout, stderr } = await cli(['report', home, ...args]);
      expect(code, args.join(' ')).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
    // An unknown grouping is a usage error from the parser (which lists the choices).
    const year = await cli(['report', home, '--by', 'year']);
    expect(year.code).toBe(1);
    expect(year.stderr).toMatch(/day.*week.*month.*session.*model.*project/s);
  });

  it('parses dates as UTC midnights and makes --until inclusive', () => {
    expect(parseUtcDate('2026-01-02', 'since')).toBe(Date.UTC(2026, 0, 2));
    expect(billWindow('2026-01-02', '2026-01-02')).toEqual({
      sinceMs: Date.UTC(2026, 0, 2),
      untilMs: Date.UTC(2026, 0, 3),
    });
    expect(billWindow(undefined, undefined)).toEqual({ sinceMs: null, untilMs: null });
  });
});

describe('cachecost report options', () => {
  it('groups by week and month in a time zone; --breakdown lists the models; filters and order', async () => {
    // 23:59:59.999Z on Jan 1 is Jan 1 in New York and Jan 2 in Tokyo.
    const tokyo = await json(['--by', 'day', '-z', 'Asia/Tokyo']);
    expect(tokyo.timeZone).toBe('Asia/Tokyo');
    expect(tokyo.lines.map((l) => l.key)).toEqual(['2026-01-02', '2026-01-03']);
    const ny = await json(['--by', 'day', '--timezone', 'America/New_York']);
    expect(ny.lines.map((l) => l.key)).toEqual(['2026-01-01', '2026-01-03']);
    // 2026-01-01 is a Thursday: its ISO week starts on Monday 2025-12-29.
    const week = await json(['--by', 'week']);
    expect(week.lines.map((l) => l.key)).toEqual(['2025-12-29']);
    const month = await json(['--by', 'month', '--breakdown']);
    expect(month.lines.map((l) => l.key)).toEqual(['2026-01']);
    expect(month.lines[0]?.breakdown?.map((l) => l.key).sort()).toEqual(['=cmd|evil', 'claude-sonnet-4-5-20250929']);
    const desc = await json(['--by', 'day', '--order', 'desc']);
    expect(desc.lines.map((l) => l.key)).toEqual(['2026-01-03', '2026-01-02', '2026-01-01']);
    const alpha = await json(['--by', 'session', '--project', 'alpha']);
    expect(alpha.lines.map((l) => l.key)).toEqual([S1]);
    const one = await json(['--by', 'session', '--session', S2.slice(0, 8)]);
    expect(one.lines.map((l) => l.key)).toEqual([S2]);
    // Compact dates and short flags; in Tokyo the first request is on Jan 2.
    const window = await json(['-s', '20260102', '-u', '20260102', '-z', 'Asia/Tokyo']);
    expect(window.since).toBe('2026-01-02');
    expect(window.total.requests).toBe(2);
  }, 60_000);

  it('defaults to $TZ, UTC when unset, and rejects an unknown zone in one line', async () => {
    const { stdout } = await cli(['report', home, '-j'], { TZ: 'Asia/Tokyo' });
    expect((JSON.parse(stdout) as BillReport).timeZone).toBe('Asia/Tokyo');
    const utc = await cli(['report', home, '-j']);
    expect((JSON.parse(utc.stdout) as BillReport).timeZone).toBe('UTC');
    const bad = await cli(['report', home, '-z', 'Mars/Olympus']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--timezone expects an IANA time zone/)]);
  }, 60_000);

  it('warns in one line when the cache directory cannot be used, and bills the same without it', async () => {
    const notADir = join(await mkdtemp(join(tmpdir(), 'cachecost-cache-file-')), 'cache');
    await writeFile(notADir, 'not a directory\n');
    const expected = await cli(['report', home, '--json', '--no-cache']);
    for (const command of [
      ['report', home, '--json'],
      ['sessions', home, '--json'],
    ]) {
      const run = await cli(command, { CACHECOST_CACHE_DIR: notADir });
      expect(run.code).toBe(0);
      expect(run.stderr.trim().split('\n')).toEqual([
        `cachecost: warning: cannot use the cache directory ${notADir} (ENOTDIR: not a directory); every log is read in full (--no-cache turns the cache and this warning off)`,
      ]);
      if (command[0] === 'report') expect(run.stdout).toBe(expected.stdout);
      // --no-cache: no cache, no warning.
      expect((await cli([...command, '--no-cache'], { CACHECOST_CACHE_DIR: notADir })).stderr).toBe('');
    }
    // No home for the default location: no cache, and nothing to warn about.
    expect((await cli(['report', home, '--json'], {}, join(home, 'no-such-home'))).stderr).toBe('');
  }, 60_000);
});
