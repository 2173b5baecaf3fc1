import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import { CachecostError } from '../../src/session/errors.js';

const prices = loadBundledPriceTable();
const dir = mkdtempSync(join(tmpdir(), 'cachecost-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function openError(path: string): Promise<CachecostError> {
  try {
    const db = await CostDb.open({ path, prices });
    db.close();
  } catch (error) {
    if (error instanceof CachecostError) return error;
    throw error;
  }
  throw new Error('expected the database not to open');
}

describe('opening the cost database', () => {
  it('writes a file database on request, and a second run replaces its tables', async () => {
    const path = join(dir, 'costs.duckdb');
    for (let run = 0; run < 2; run++) {
      const db = await CostDb.open({ path, prices });
      await db.insertScenarios([{ name: 'recorded', family: 'recorded', params_json: '{}' }]);
      const [row] = await db.query('SELECT count(*) AS n FROM scenarios');
      expect(row?.['n']).toBe(1n);
      db.close();
    }
    expect(existsSync(path)).toBe(true);
  });

  it('runs with the threads asked for, else with DuckDB’s default', async () => {
    const threads = async (db: CostDb): Promise<unknown> =>
      (await db.query("SELECT current_setting('threads') AS t"))[0]?.['t'];
    const one = await CostDb.open({ path: null, prices, threads: 1 });
    expect(Number(await threads(one))).toBe(1);
    one.close();
    const plain = await CostDb.open({ path: null, prices });
    expect(Number(await threads(plain))).toBeGreaterThanOrEqual(1);
    plain.close();
  });

  it('an unwritable location or a file that is not a database is DATABASE_ERROR with one line', async () => {
    const missingDir = await openError(join(dir, 'no', 'such', 'dir', 'x.duckdb'));
    expect(missingDir.code).toBe('DATABASE_ERROR');
    expect(missingDir.message).not.toContain('\n');
    const garbage = join(dir, 'garbage.duckdb');
    writeFileSync(garbage, 'this is not a duckdb file '.repeat(1000));
    const notDb = await openError(garbage);
    expect(notDb.code).toBe('DATABASE_ERROR');
    expect(notDb.message).not.toContain('\n');
  });

  it('a file locked by another process is DATABASE_ERROR with one line', async () => {
    const path = join(dir, 'locked.duckdb');
    const holder = `import { DuckDBInstance } from '@duckdb/node-api';
      const db = await DuckDBInstance.create(${JSON.stringify(path)});
      process.stdout.write('ready\\n');
      process.stdin.resume();
      process.stdin.on('end', () => { db.closeSync(); process.exit(0); });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', holder], {
      cwd: process.cwd(),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`lock holder exited with ${String(code)}`)));
      });
      const locked = await openError(path);
      expect(locked.code).toBe('DATABASE_ERROR');
      expect(locked.message).toMatch(/lock/i);
      expect(locked.message).not.toContain('\n');
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
