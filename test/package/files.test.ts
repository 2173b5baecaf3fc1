/**
 * What `npm publish` ships (package.json `files`): the compiled CLI and library with their
 * run-time assets, never the dataset generator, the tests or the sources. Asked of npm itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the published package', () => {
  // `npm install` builds dist/ (`prepare`); without it there is nothing to pack.
  it.skipIf(!existsSync(`${root}dist/cli/main.js`))(
    'holds dist/ without the dataset generator, and nothing from src/ or test/',
    () => {
      const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
      });
      const [pack] = JSON.parse(out) as [{ files: { path: string }[] }];
      const paths = pack.files.map((file) => file.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'package.json',
          'README.md',
          'dist/cli/main.js',
          'dist/index.js',
          'dist/engine/index.js',
          'dist/cost/prices.json',
          'dist/cost/sql/schema.sql',
        ]),
      );
      expect(
        paths.filter((path) => !path.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(path)),
      ).toEqual([]);
      expect(
        paths.filter((path) => path.startsWith('dist/datagen/') || /(?:^|\/)test\/|\.test\.js$/.test(path)),
      ).toEqual([]);
    },
  );
});
