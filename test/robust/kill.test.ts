/**
 * A run killed with SIGKILL at a random moment leaves every output it was asked for either as the
 * previous run left it or as a complete new one: the `--db` file (a run appended to a copy that
 * replaces it, see cost/fleet/append-db.ts) and each `--csv` table (written under temporary names
 * and renamed; see cost/output-path.ts). The next run removes the temporary files a killed one
 * left behind.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cachecost-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two small sessions of the generated dataset: enough work to be killed in the middle of.
const DATA = [
  'datasets/freecode/rollout/sessions/b8739e35-e2c1-44ab-baba-e8c7f58b3576',
  'datasets/freecode/rollout/sessions/01d607bc-ff09-4e33-8f3e-39a4a001007a',
];
const OLD = ['--target', '80000'];
const NEW = ['--target', '200000', '--scenario', 'freecode,window-only,none'];

function digest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function csvDigests(csvDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(csvDir)
    .filter((n) => n.endsWith('.csv'))
    .sort())
    out[name] = digest(join(csvDir, name));
  return out;
}

async function tableCounts(path: string): Promise<string> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await db.connect();
  const reader = await connection.runAndReadAll(
    'SELECT (SELECT count(*) FROM runs) AS r, (SELECT count(*) FROM requests) AS q, (SELECT count(*) FROM sessions) AS s',
  );
  const row = reader.getRowObjects()[0];
  connection.closeSync();
  db.closeSync();
  return `${String(row?.['r'])}/${String(row?.['q'])}/${String(row?.['s'])}`;
}

/** Names and modification times in `dir`: the child has begun writing once this changes. */
function snapshot(path: string): string {
  return readdirSync(path)
    .sort()
    .map((name) => `${name}@${statSync(join(path, name)).mtimeMs}`)
    .join(',');
}

async function changed(path: string, before: string, give: Promise<unknown>): Promise<void> {
  let done = false;
  void give.then(() => (done = true));
  while (!done && snapshot(path) === before) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function run(args: readonly string[], db: string, csv: string): Promise<void> {
  const { done } = startCli(['simulate', ...args, '--db', db, '--csv', csv, ...DATA]);
  const result = await done;
  expect(result.code, result.stderr).toBe(0);
}

describe('kill -9 during simulate --db --csv', () => {
  it('leaves the old or the new files, never partial or empty ones, and the next run cleans up', async () => {
    // The two possible end states, each from complete runs: `--db` keeps every run, so the new
    // state is the old run with the new one appended.
    const newDb = join(dir, 'new.duckdb');
    const newCsv = join(dir, 'new-csv');
    await run(OLD, newDb, newCsv);
    const started = Date.now();
    await run(NEW, newDb, newCsv);
    const fullRunMs = Date.now() - started;
    const expectedNew = { counts: await tableCounts(newDb), csv: csvDigests(newCsv) };

    const db = join(dir, 'costs.duckdb');
    const csv = join(dir, 'csv');
    await run(OLD, db, csv);
    const expectedOld = { counts: await tableCounts(db), csv: csvDigests(csv) };
    expect(expectedOld.counts).not.toBe(expectedNew.counts);

    const backup = join(dir, 'backup');
    cpSync(db, join(backup, 'costs.duckdb'));
    cpSync(csv, join(backup, 'csv'), { recursive: true });

    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      // Each attempt starts from the old files, so a kill that leaves them is told apart from a finished run.
      cpSync(join(backup, 'costs.duckdb'), db);
      cpSync(join(backup, 'csv'), csv, { recursive: true });
      const before = snapshot(dir);
      const { child, done } = startCli(['simulate', ...NEW, '--db', db, '--csv', csv, ...DATA]);
      // Killed at a random moment after the run began writing its outputs (temp files, WAL, tables).
      await changed(dir, before, done);
      const delay = Math.floor(Math.random() * Math.min(3000, fullRunMs / 2));
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const result = await done;
      clearTimeout(timer);
      const counts = await tableCounts(db);
      expect([expectedOld.counts, expectedNew.counts]).toContain(counts);
      for (const [name, hash] of Object.entries(csvDigests(csv))) {
        expect([expectedOld.csv[name], expectedNew.csv[name]], name).toContain(hash);
      }
      outcomes.push(`${delay} ms ${result.signal ?? 'exit'}: db ${counts === expectedNew.counts ? 'new' : 'old'}`);
    }

    // A complete run after the kills, from the old files: new files, and no temporary file left beside them.
    cpSync(join(backup, 'costs.duckdb'), db);
    await run(NEW, db, csv);
    expect(await tableCounts(db)).toBe(expectedNew.counts);
    expect(csvDigests(csv)).toEqual(expectedNew.csv);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(readdirSync(csv).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    console.log(`kill outcomes: ${outcomes.join('; ')} (full run ${fullRunMs} ms)`);
  }, 600_000);
});
