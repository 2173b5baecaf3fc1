import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { examinedFamilies, FLAGS_RAISED_EXIT, parseThresholdOptions } from '../../src/cli/commands/flags.js';
import type { FlagsReport } from '../../src/report/flags-report.js';
import { cli } from './run.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');
const SESSION_ID = 'f1a95000-0000-4000-8000-000000000001';
let home = '';

/**
 * A rollout-only FreeCode home: eight responses growing 4,000 tokens each from 100,000, and a
 * PreCompact block after the responses at 108,000, 112,000 and 116,000 (a three-block storm).
 */
async function hookStormHome(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cachecost-flags-'));
  const sessionDir = join(dir, 'rollout', 'sessions', SESSION_ID);
  await mkdir(sessionDir, { recursive: true });
  const lines: string[] = [];
  let seq = 0;
  let timestamp = 1_790_500_000_000;
  const event = (type: string, fields: Record<string, unknown>) => {
    seq += 1;
    timestamp += 1_000;
    lines.push(
      JSON.stringify({
        type,
        id: `01M3N0W000${String(seq).padStart(10, '0')}`,
        seq,
        aggregateID: SESSION_ID,
        timestamp,
        ...fields,
      }),
    );
  };
  let previous = 0;
  for (let i = 0; i < 8; i++) {
    const inputTokens = 100_000 + 4_000 * i;
    const turnId = `turn-${i}`;
    event('turn.started', { turnId });
    event('model.request', {
      turnId,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      messageCount: 2 + i,
      toolCount: 16,
      promptChars: inputTokens * 4,
      streamed: true,
    });
    event('model.response', {
      turnId,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      duration_ms: 900,
      inputTokens,
      outputTokens: 200,
      cacheReadTokens: previous,
      cacheWriteTokens: inputTokens - previous,
      toolCalls: [],
      textChars: 800,
      thinkingChars: 0,
    });
    previous = inputTokens;
    if (i >= 2 && i <= 4) event('hook.blocked', { hookName: 'PreCompact', reason: 'context pinned' });
  }
  await writeFile(join(sessionDir, 'events.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('cachecost flags', () => {
  beforeAll(async () => {
    home = await hookStormHome();
  });

  it('prints the flags as a table with one sentence each', async () => {
    const { code, stdout } = await cli(['flags', home]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Recorded data: 1 flag \(0 critical, 1 warning, 0 info\) in 1 of 1 session\./);
    expect(stdout).toMatch(/│ 1 │ warning +│ blocked-hook storm │ f1a95000… │ recorded │ +3–7 │/);
    expect(stdout).toMatch(
      /1\. blocked-hook storm \(f1a95000…, recorded\): the PreCompact hook refused 3 compactions with none completing in between while the context grew 108K → 116K/,
    );
  });

  it('--json: one object with the flags, exact dollars beside the USD number, and the thresholds used', async () => {
    const { code, stdout } = await cli(['flags', home, '--json', '--threshold', 'runawayCostRatio=4']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as FlagsReport;
    expect(report).toMatchObject({
      baseline: 'freecode@120000',
      scenarios: ['recorded'],
      sessions: 1,
      thresholds: { runawayCostRatio: 4, hookStormMinBlocks: 3 },
    });
    expect(report.flags).toHaveLength(1);
    const flag = report.flags[0];
    expect(flag).toMatchObject({
      kind: 'blocked-hook-storm',
      title: 'blocked-hook storm',
      sessionId: SESSION_ID,
      requests: { first: 3, last: 7 },
    });
    expect(flag?.evidence).toMatchObject({
      blockedCompactions: 3,
      contextAtFirstBlockTokens: 108_000,
      contextAtLastBlockTokens: 116_000,
    });
    expect(flag?.stakeAgainst).toBe('freecode@120000 with the PreCompact hook allowing');
    expect(flag?.atStakeUsd).toMatch(/^-?\d+(\.\d+)?$/);
    expect(report.flaggedSessions['recorded']?.['blocked-hook-storm']).toBe(1);
  });

  it('--csv writes one row per flag, atomically; "-" writes to stdout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-flags-csv-'));
    const file = join(dir, 'flags.csv');
    expect((await cli(['flags', home, '--csv', file])).code).toBe(0);
    const parsed = Papa.parse<Record<string, string>>(await readFile(file, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.meta.fields).toEqual([
      'session_id',
      'scenario',
      'kind',
      'severity',
      'basis',
      'first_request',
      'last_request',
      'usd_at_stake',
      'stake_against',
      'stake_note',
      'summary',
      'evidence',
    ]);
    expect(parsed.data).toHaveLength(1);
    expect(parsed.data[0]).toMatchObject({ kind: 'blocked-hook-storm', first_request: '3', last_request: '7' });
    expect(parsed.data[0]?.['evidence']).toMatch(/^blockedCompactions=3;/);
    const stdout = (await cli(['flags', home, '--csv', '-'])).stdout;
    expect(stdout.split('\n')[0]).toBe(
      'session_id,scenario,kind,severity,basis,first_request,last_request,usd_at_stake,stake_against,stake_note,summary,evidence',
    );
  });

  it(`--fail-on exits ${FLAGS_RAISED_EXIT} when the recorded data raises a flag that bad or worse`, async () => {
    const warning = await cli(['flags', home, '--fail-on', 'warning']);
    expect(warning.code).toBe(FLAGS_RAISED_EXIT);
    expect(warning.stderr).toMatch(/1 flag\(s\) at warning or worse in the recorded data \(--fail-on warning\)/);
    expect((await cli(['flags', home, '--fail-on', 'critical'])).code).toBe(0);
    // A threshold that clears the storm clears the exit code.
    expect((await cli(['flags', home, '--fail-on', 'info', '--threshold', 'hookStormMinBlocks=4'])).code).toBe(0);
  });

  it('reads thresholds from --config, overridden by --threshold; a bad file or name is one line and exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-flags-config-'));
    const config = join(dir, 'flags.json');
    await writeFile(config, JSON.stringify({ hookStormMinBlocks: 4 }));
    expect(JSON.parse((await cli(['flags', home, '--config', config, '--json'])).stdout).flags).toHaveLength(0);
    expect(
      JSON.parse(
        (await cli(['flags', home, '--config', config, '--threshold', 'hookStormMinBlocks=3', '--json'])).stdout,
      ).flags,
    ).toHaveLength(1);
    await writeFile(config, JSON.stringify({ hookStormBlocks: 4 }));
    const unknown = await cli(['flags', home, '--config', config]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/unknown threshold "hookStormBlocks"/);
    expect((await cli(['flags', home, '--config', join(dir, 'missing.json')])).code).toBe(1);
    expect((await cli(['flags', home, '--threshold', 'runawayCostRatio'])).stderr).toMatch(
      /--threshold expects name=value/,
    );
  });

  it('examines simulated scenarios beside the log and counts flagged sessions per scenario', async () => {
    const { code, stdout } = await cli(['flags', join(FIXTURES, 'home-newest'), '--target', '80000', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as FlagsReport;
    expect(report.scenarios).toEqual(['recorded', 'freecode@80000']);
    expect(Object.keys(report.flaggedSessions)).toEqual(['recorded', 'freecode@80000']);
    // The §12 example session is small and healthy: nothing to flag.
    expect(report.flags).toEqual([]);
  });

  it('chooses the examined families as simulate does', () => {
    const base = {
      verbose: false,
      strict: false,
      paths: undefined,
      scenario: [],
      target: undefined,
      window: undefined,
      buffer: undefined,
      preserveTurns: undefined,
      preserveTokens: undefined,
      ttl: undefined,
      pruning: undefined,
      summarizer: undefined,
      selector: undefined,
      pricing: undefined,
      config: undefined,
      threshold: [],
      json: false,
      csv: undefined,
      failOn: undefined,
    };
    expect(examinedFamilies(base)).toEqual([]);
    expect(examinedFamilies({ ...base, target: '80k' })).toEqual(['freecode']);
    expect(examinedFamilies({ ...base, scenario: ['window-only,none'] })).toEqual(['window-only', 'none']);
    expect(parseThresholdOptions(['targetTokens=100k,runawayCostRatio=2.5', 'ttlMinGaps=4'])).toEqual({
      targetTokens: 100_000,
      runawayCostRatio: 2.5,
      ttlMinGaps: 4,
    });
  });
});
