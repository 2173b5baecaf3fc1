/**
 * The sessions `simulate`, `tune` and `flags` cannot replay (no per-request data) are named on one
 * stderr line by each, the same way (`skippedSessionsNotice`): on the real Codex logs, which hold
 * one such session, the line names a session the JSON output does not show.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REAL_LOGS, describeWithShared } from '../support/shared.js';
import { cli } from './run.js';

const CODEX = join(REAL_LOGS, 'codex');
const LINE = /^cachecost: (\d+) session\(s\) without per-request data were not (replayed|examined): (.+)$/m;

function named(stderr: string, done: string): string[] {
  const lines = stderr.split('\n').filter((line) => LINE.test(line));
  expect(lines, stderr).toHaveLength(1);
  const match = LINE.exec(lines[0] ?? '');
  expect(match?.[2]).toBe(done);
  const ids = (match?.[3] ?? '').split(', ');
  expect(Number(match?.[1])).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
  return ids;
}

describeWithShared(
  'sessions without per-request data, on the real Codex logs',
  () => {
    it('simulate, tune and flags name the same sessions, none of them in their reports', async () => {
      const simulate = await cli(['simulate', '--json', CODEX]);
      expect(simulate.code, simulate.stderr).toBe(0);
      const skipped = named(simulate.stderr, 'replayed');
      const simulated = (JSON.parse(simulate.stdout) as { sessions: { sessionId: string }[] }).sessions;
      expect(simulated.length).toBeGreaterThan(0);
      for (const id of skipped) expect(simulated.map((session) => session.sessionId)).not.toContain(id);

      const flags = await cli(['flags', '--json', CODEX]);
      expect(flags.code, flags.stderr).toBe(0);
      expect(named(flags.stderr, 'examined')).toEqual(skipped);

      const tune = await cli(['tune', '--json', '--workers', '1', CODEX]);
      expect(tune.code, tune.stderr).toBe(0);
      expect(named(tune.stderr, 'replayed')).toEqual(skipped);
      const report = JSON.parse(tune.stdout) as { skipped: { sessionId: string }[] };
      expect(report.skipped.map((session) => session.sessionId)).toEqual(skipped);
    });
  },
  CODEX,
);
