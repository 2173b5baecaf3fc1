import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cli } from './run.js';

const FIXTURES = 'test/fixtures/freecode';
const SPEC12 = `${FIXTURES}/home-newest`;

const SPEC12_ROW = {
  sessionId: '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34',
  source: 'freecode',
  models: ['claude-sonnet-4-5'],
  userMessages: 3,
  requests: 4,
  requestsWithoutUsage: 0,
  promptTokens: 51480,
  cacheReadTokens: 37440,
  cacheWriteTokens: 13400,
  outputTokens: 536,
  peakContextTokens: 13400,
  compactions: 1,
  overflows: 0,
  issues: 0,
  // claude-sonnet-4-5 per MTok: in $3, read $0.30, write $3.75 (no TTL split: the 5m rate), out $15.
  // uncached 51,480 - 37,440 - 13,400 = 640: 640×3 + 37,440×0.3 + 13,400×3.75 + 536×15 = 71,442 µ$.
  costUsd: '0.071442',
  costComplete: true,
  unpricedRequests: 0,
};

describe('cachecost sessions', () => {
  it('--json prints the exact array of camelCase objects the README documents', async () => {
    const { code, stdout, stderr } = await cli(['sessions', SPEC12, '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const rows = z.array(z.record(z.string(), z.unknown())).parse(JSON.parse(stdout));
    expect(rows).toEqual([SPEC12_ROW]);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'sessionId',
      'source',
      'models',
      'userMessages',
      'requests',
      'requestsWithoutUsage',
      'promptTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'outputTokens',
      'peakContextTokens',
      'compactions',
      'overflows',
      'issues',
      'costUsd',
      'costComplete',
      'unpricedRequests',
    ]);
  });

  it('prints a table by default, with compact numbers and a total row', async () => {
    const { code, stdout, stderr } = await cli(['sessions', SPEC12, `${FIXTURES}/home-aug`]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    await expect(stdout).toMatchFileSnapshot('__snapshots__/sessions-table.txt');
  });

  it('--csv writes every row with exact integers and escapes a formula-looking session id', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cachecost-cli-'));
    const evilId = '=2+5+cmd|calc!A0';
    cpSync(
      `${SPEC12}/rollout/sessions/7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34`,
      join(home, 'rollout', 'sessions', evilId),
      { recursive: true },
    );
    const out = join(home, 'sessions.csv');
    const { code, stdout } = await cli(['sessions', SPEC12, home, '--csv', out]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const csv = readFileSync(out, 'utf8');
    const [header, ...rows] = Papa.parse<string[]>(csv.trimEnd()).data;
    expect(header).toEqual(Object.keys(SPEC12_ROW));
    expect(rows.map((r) => r[0])).toEqual(['7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34', `'${evilId}`]);
    expect(rows[0]).toEqual([
      '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34',
      'freecode',
      'claude-sonnet-4-5',
      '3',
      '4',
      '0',
      '51480',
      '37440',
      '13400',
      '536',
      '13400',
      '1',
      '0',
      '0',
      '0.071442',
      'true',
      '0',
    ]);
  });

  it('--csv - writes the CSV to stdout; with --json as well it is a usage error', async () => {
    const { code, stdout } = await cli(['sessions', SPEC12, '--csv', '-']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[1]).toBe(
      '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34,freecode,claude-sonnet-4-5,3,4,0,51480,37440,13400,536,13400,1,0,0,0.071442,true,0',
    );
    expect(await cli(['sessions', SPEC12, '--csv', '-', '--json'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cachecost: --json and --csv - both write to stdout; choose one\n',
    });
  });

  // Counted by what happened to the input: a repaired line is not a skipped one, and an issue about a
  // whole file (line 0) is not a line at all (11 issues: 7 lines skipped, 2 repaired, 2 whole files).
  it('prints one summary line on stderr when lines were skipped, and still the results', async () => {
    const { code, stdout, stderr } = await cli(['sessions', `${FIXTURES}/bad-input`, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toHaveLength(2);
    expect(stderr).toBe(
      'cachecost: 7 lines skipped, 2 lines repaired, 2 files with a whole-file issue in 4 files; --verbose lists them\n',
    );
  });

  it('--verbose lists every issue as file:line: reason before the summary line', async () => {
    const { stderr } = await cli(['sessions', `${FIXTURES}/bad-input`, '--json', '--verbose']);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines).toContain(
      `${FIXTURES}/bad-input/rollout/sessions/d4e5f6a7-0000-4000-8000-000000000004/events.jsonl:5: unknown event type "model.teleport"`,
    );
    expect(lines).toContain(
      `${FIXTURES}/bad-input/rollout/sessions/d4e5f6a7-0000-4000-8000-000000000004/events.jsonl:11: truncated last line`,
    );
    expect(lines.at(-1)).toBe(
      'cachecost: 7 lines skipped, 2 lines repaired, 2 files with a whole-file issue in 4 files; listed above',
    );
  });

  it('--strict turns any ingest issue into exit 2 with one line and no results', async () => {
    expect(await cli(['sessions', `${FIXTURES}/bad-input`, '--strict'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'cachecost: 7 lines skipped, 2 lines repaired, 2 files with a whole-file issue in 4 files and --strict is set; --verbose lists them\n',
    });
    expect((await cli(['sessions', SPEC12, '--strict', '--json'])).code).toBe(0);
  });

  it('exits 1 with one line for a path that does not exist', async () => {
    expect(await cli(['sessions', 'no/such/dir'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cachecost: no such file or directory: no/such/dir\n',
    });
  });

  it('reads $FREECODE_HOME, else ~/.freecode, when no path is given', async () => {
    expect(JSON.parse((await cli(['sessions', '--json'], { FREECODE_HOME: SPEC12 })).stdout)).toEqual([SPEC12_ROW]);
    const none = await cli(['sessions'], {}, '/nonexistent-home');
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    for (const place of [
      '.freecode',
      '.claude/projects',
      '.config/claude/projects',
      '.codex/sessions',
      '.codex/archived_sessions',
      '.local/share/opencode/storage',
    ]) {
      expect(none.stderr).toContain(`/nonexistent-home/${place}`);
    }
    const home = mkdtempSync(join(tmpdir(), 'cachecost-home-'));
    cpSync(SPEC12, join(home, '.freecode'), { recursive: true });
    expect(JSON.parse((await cli(['sessions', '--json'], { FREECODE_HOME: '' }, home)).stdout)).toEqual([SPEC12_ROW]);
  });

  it('says so on stderr when a directory holds no sessions', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cachecost-empty-'));
    expect(await cli(['sessions', empty])).toEqual({
      code: 0,
      stdout: '',
      stderr: `cachecost: no sessions found in ${empty}\n`,
    });
    expect((await cli(['sessions', empty, '--json'])).stdout).toBe('[]\n');
  });
});
