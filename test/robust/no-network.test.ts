/**
 * No command touches the network at run time (pricing is bundled or read from a file): every
 * command runs in a child process whose preload makes any socket creation throw, and succeeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './spawn-cli.js';

const PRELOAD = new URL('./no-network-preload.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'cachecost-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SESSION = 'datasets/freecode/rollout/sessions/b8739e35-e2c1-44ab-baba-e8c7f58b3576';
const LOGS = [
  SESSION,
  'test/fixtures/claude-code',
  'test/fixtures/codex',
  'test/fixtures/opencode',
  'test/fixtures/openhands',
  'test/fixtures/swe-agent',
];

describe('no network', () => {
  it('the preload does refuse a connection (the test can fail)', async () => {
    const { done } = startCli(
      ['sessions', SESSION],
      [
        PRELOAD,
        `data:text/javascript,${encodeURIComponent("import net from 'node:net'; net.connect(80, 'example.com');")}`,
      ],
    );
    const result = await done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('network access refused');
  }, 120_000);

  const commands: readonly (readonly string[])[] = [
    ['sessions', ...LOGS],
    ['report', ...LOGS],
    [
      'simulate',
      '--target',
      '120000',
      '--db',
      join(dir, 'c.duckdb'),
      '--csv',
      join(dir, 'csv'),
      '--html',
      join(dir, 'r.html'),
      ...LOGS,
    ],
    ['flags', ...LOGS],
    ['tune', SESSION],
  ];
  for (const args of commands) {
    it(`${args[0] ?? ''} succeeds with every socket refused`, async () => {
      const { done } = startCli(args, [PRELOAD]);
      const result = await done;
      expect(result.stderr).not.toContain('network access refused');
      expect(result.code, result.stderr).toBe(0);
    }, 300_000);
  }
});
