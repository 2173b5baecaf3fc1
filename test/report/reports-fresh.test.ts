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

/** The commands `npm run reports` runs, read from package.json: `[argv, stdout file]` each. */
async function reportsCommands(): Promise<Array<readonly [string[], string]>> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = pkg.scripts['reports'] ?? '';
  const commands = [
    ...script.matchAll(/(?:SOURCE_DATE_EPOCH=0 )?node dist\/cli\/main\.js (.*?) > reports\/([\w.-]+)/g),
  ].map((m) => [(m[1] ?? '').split(/\s+/), m[2] ?? ''] as const);
  if (commands.length < 4) throw new Error(`unexpected reports script: ${script}`);
  return commands;
}

async function run(argv: readonly string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: () => undefined,
    // As the script runs the HTML command: no generation time in the page.
    env: { SOURCE_DATE_EPOCH: '0' },
    homeDir: '/nonexistent-home',
  });
  return { code, stdout };
}

describe('reports/', () => {
  it('is what `npm run reports` makes from datasets/freecode today', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-reports-'));
    const expected: string[] = [];
    for (const [argv, stdoutFile] of await reportsCommands()) {
      // Outputs go to the temporary directory; inputs are read where the script reads them.
      const local = argv.map((arg) =>
        arg === 'reports'
          ? dir
          : arg.startsWith('reports/')
            ? join(dir, arg.slice('reports/'.length))
            : arg.startsWith('datasets/')
              ? join(ROOT, arg)
              : arg,
      );
      const { code, stdout } = await run(local);
      expect(code).toBe(0);
      expect(stdout, `reports/${stdoutFile} is stale: run npm run reports`).toBe(
        await readFile(join(ROOT, 'reports', stdoutFile), 'utf8'),
      );
      expected.push(stdoutFile);
    }
    const fresh = (await readdir(dir)).sort();
    expect((await readdir(join(ROOT, 'reports'))).sort()).toEqual([...fresh, ...expected].sort());
    for (const name of fresh) {
      // The HTML's provenance names its inputs and command as given: here absolute, in the script relative.
      const content = (await readFile(join(dir, name), 'utf8'))
        .replaceAll(`${ROOT}/`, '')
        .replaceAll(`${dir}/`, 'reports/');
      expect(content, `reports/${name} is stale: run npm run reports`).toBe(
        await readFile(join(ROOT, 'reports', name), 'utf8'),
      );
    }
  }, 120_000);
});
