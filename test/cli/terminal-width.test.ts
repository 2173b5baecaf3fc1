/**
 * Every table command fits the terminal: `report`, `sessions`, `simulate`, `flags` and `tune` on
 * the real logs (../shared/real-logs, read in place) rendered at 120 and 80 columns, longest line
 * measured. Width comes from $COLUMNS here, as from a pipe with COLUMNS set; on a terminal the CLI
 * reads stdout's columns the same way.
 */
import { stripVTControlCharacters } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run.js';

const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', 'shared', 'real-logs');

const COMMANDS: Record<string, readonly string[]> = {
  report: ['report', REAL_LOGS, '--by', 'model'],
  'report by day': ['report', REAL_LOGS],
  sessions: ['sessions', REAL_LOGS],
  simulate: ['simulate', REAL_LOGS, '--target', '80000,120000'],
  flags: ['flags', REAL_LOGS, '--target', '80000'],
  tune: ['tune', REAL_LOGS, '--target', '60k..180k:60k', '--workers', '1'],
};

function longestLine(text: string): number {
  return Math.max(
    ...stripVTControlCharacters(text)
      .split('\n')
      .map((line) => [...line].length),
  );
}

describe('tables fit the terminal', () => {
  for (const [name, argv] of Object.entries(COMMANDS)) {
    it(`${name} fits 120 and 80 columns; --wide does not cut`, async () => {
      const widths: Record<string, number> = {};
      for (const columns of [120, 80]) {
        const { code, stdout, stderr } = await cli(argv, { COLUMNS: String(columns) });
        expect(code, stderr).toBe(0);
        expect(stdout.length).toBeGreaterThan(0);
        widths[columns] = longestLine(stdout);
        expect(longestLine(stdout), `${name} at ${columns} columns`).toBeLessThanOrEqual(columns);
      }
      const wide = await cli([...argv, '--wide'], { COLUMNS: '80' });
      // The full layout is at least as wide as the fitted one (nothing hidden silently).
      expect(longestLine(wide.stdout)).toBeGreaterThanOrEqual(widths[80] ?? 0);
      console.info(
        `${name}: longest line ${widths[120]} at 120, ${widths[80]} at 80, ${longestLine(wide.stdout)} with --wide`,
      );
    }, 600_000);
  }

  it('colours only when asked: --color, FORCE_COLOR; never with NO_COLOR or --no-color', async () => {
    const argv = ['report', REAL_LOGS, '--by', 'model'];
    const esc = new RegExp(`${String.fromCharCode(27)}\\[`);
    expect((await cli(argv)).stdout).not.toMatch(esc);
    expect((await cli([...argv, '--color'])).stdout).toMatch(esc);
    expect((await cli(argv, { FORCE_COLOR: '1' })).stdout).toMatch(esc);
    expect((await cli([...argv, '--color'], { NO_COLOR: '1' })).stdout).toMatch(esc);
    expect((await cli([...argv, '--no-color'], { FORCE_COLOR: '1' })).stdout).not.toMatch(esc);
    expect((await cli(argv, { NO_COLOR: '1', FORCE_COLOR: '1' })).stdout).not.toMatch(esc);
  }, 120_000);
});
