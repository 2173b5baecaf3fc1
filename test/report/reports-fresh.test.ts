/**
 * `reports/` holds the simulate CSVs (and the terminal report) for datasets/freecode; this test
 * regenerates them with the exact command of `npm run reports` (read from package.json) and fails
 * when the committed files are stale. Fix: `npm run reports`.
 */
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/app.js';

const ROOT = join(import.meta.dirname, '..', '..');

async function reportsCommand(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = pkg.scripts['reports'] ?? '';
  const match = /node dist\/cli\/main\.js (.*?) > reports\/simulate\.txt$/.exec(script);
  if (match?.[1] === undefined) throw new Error(`unexpected reports script: ${script}`);
  return match[1].split(/\s+/);
}

describe('reports/', () => {
  it('is what `npm run reports` makes from datasets/freecode today', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-reports-'));
    const argv = (await reportsCommand()).map((arg) => (arg === 'reports' ? dir : arg === 'datasets/freecode' ? join(ROOT, 'datasets', 'freecode') : arg));
    let stdout = '';
    const code = await runCli(argv, {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => undefined,
      env: {},
      homeDir: '/nonexistent-home',
    });
    expect(code).toBe(0);
    const committed = (await readdir(join(ROOT, 'reports'))).sort();
    expect(committed).toEqual(['compactions.csv', 'requests.csv', 'scenarios.csv', 'sessions.csv', 'simulate.txt']);
    expect(stdout).toBe(await readFile(join(ROOT, 'reports', 'simulate.txt'), 'utf8'));
    for (const name of committed.filter((f) => f.endsWith('.csv'))) {
      const fresh = await readFile(join(dir, name), 'utf8');
      expect(fresh, `reports/${name} is stale: run npm run reports`).toBe(await readFile(join(ROOT, 'reports', name), 'utf8'));
    }
  }, 120_000);
});
