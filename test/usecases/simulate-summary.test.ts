/**
 * `simulate` without tables to give (no CSV, HTML details, database file or `--db`) folds its
 * summary in TypeScript and never opens DuckDB; its report and notices are byte for byte those of
 * the SQL summary (`summary: 'sql'`, the path every run that needs the tables takes), on the
 * generated FreeCode dataset and on the real logs of every agent.
 *
 * Checked against a deliberate bug: the fold's median as `lo + (hi - lo) * d` made the real logs
 * differ here (one session's `medianCacheReadErrorPct`, last digit).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CostDb } from '../../src/cost/db.js';
import type { ParallelParse } from '../../src/ingest/index.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { simulateSessions } from '../../src/usecases/simulate.js';

const REPO = join(import.meta.dirname, '..', '..');
const REAL_LOGS = join(REPO, '..', 'shared', 'real-logs');
const DATASET = join(REPO, 'datasets', 'freecode');
const ONE_THREAD: ParallelParse = { workers: 0, minBytes: 0 };

afterEach(() => {
  vi.restoreAllMocks();
});

async function bytes(paths: readonly string[], summary: 'auto' | 'sql'): Promise<{ report: string; notices: string }> {
  const outcome = await simulateSessions({
    paths,
    scenarios: buildScenarios(['freecode', 'none'], {}),
    parallel: ONE_THREAD,
    summary,
  });
  expect(outcome.details).toEqual([]);
  return { report: JSON.stringify(outcome.report, null, 2), notices: JSON.stringify(outcome.notices) };
}

describe('simulate summary folded in TypeScript', () => {
  it.each([
    ['datasets/freecode', DATASET],
    ['the real logs', REAL_LOGS],
  ])('gives the SQL summary byte for byte on %s, without opening DuckDB', async (_label, path) => {
    if (!existsSync(path)) throw new Error(`missing ${path}`);
    const open = vi.spyOn(CostDb, 'open');
    const folded = await bytes([path], 'auto');
    expect(open).not.toHaveBeenCalled();
    const sql = await bytes([path], 'sql');
    expect(open).toHaveBeenCalledTimes(1);
    const report = JSON.parse(folded.report) as { sessions: unknown[] };
    expect(report.sessions.length).toBeGreaterThan(1);
    expect(folded).toEqual(sql);
  });
});
