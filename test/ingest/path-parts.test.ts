// The walk's path shortcuts (`src/ingest/path-parts.ts`) against `node:path`, on paths made of the
// pieces where the two could differ: separators doubled, leading or trailing, `.` and `..`, empty.
// Checked against deliberate bugs: `dirName` slicing a path whose only separator is its first
// character ('/a' → '' instead of '/'), `childPrefix` accepting a directory with a `./` segment,
// and, for `realChild`, the walk's condition widened to listed links to directories (`isDirectory() || isSymbolicLink()`).
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseName, childPrefix, dirName, realChild } from '../../src/ingest/path-parts.js';

const scratch = mkdtempSync(join(tmpdir(), 'cachecost-path-parts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const piece = fc.constantFrom('', '.', '..', 'a', 'b.jsonl', '.c', '..d', 'e f', 'é');
const path = fc
  .tuple(fc.boolean(), fc.array(piece, { maxLength: 5 }), fc.constantFrom('', '/', '//'))
  .map(([absolute, pieces, end]) => `${absolute ? '/' : ''}${pieces.join('/')}${pieces.length > 0 ? end : ''}`);
const name = fc.constantFrom('x', 'y.jsonl', '.z', '..w', 'agent-1.jsonl');

describe('path parts', () => {
  it('baseName and dirName equal basename and dirname', () => {
    fc.assert(
      fc.property(path, (p) => {
        expect(baseName(p)).toBe(basename(p));
        expect(dirName(p)).toBe(dirname(p));
      }),
      { numRuns: 2000 },
    );
  });

  it('a child path from childPrefix equals join', () => {
    fc.assert(
      fc.property(path, name, (dir, child) => {
        const prefix = childPrefix(dir);
        expect(prefix === null ? join(dir, child) : prefix + child).toBe(join(dir, child));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the shortcut for the paths a walk builds', () => {
    if (sep !== '/') return;
    expect(childPrefix('logs/projects/-home-me-app')).toBe('logs/projects/-home-me-app/');
    expect(dirName('logs/projects/-home-me-app/S.jsonl')).toBe('logs/projects/-home-me-app');
  });
});

describe('realChild', () => {
  let tree = 0;
  // Trees of directories and links to directories (to siblings, ancestors, and through a linked
  // root): every directory a listing names as a directory has the real path `realpath` gives.
  it('is the real path of every directory a listing names, under links and a linked root', () => {
    if (sep !== '/') return;
    const dirName = fc.constantFrom('a', 'b', 'é', 'c d', '.e', '-home-me-app');
    const pathArb = fc.array(dirName, { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(
        fc.array(pathArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(pathArb, pathArb), { maxLength: 3 }),
        (dirs, links) => {
          const root = join(scratch, `tree-${(tree += 1)}`);
          for (const dir of dirs) mkdirSync(join(root, ...dir), { recursive: true });
          for (const [at, target] of links) {
            const from = join(root, ...at.slice(0, -1), `link-${at.at(-1) ?? 'x'}`);
            mkdirSync(dirname(from), { recursive: true });
            try {
              symlinkSync(join(root, ...target), from);
            } catch {
              // Already there.
            }
          }
          const linkedRoot = `${root}-via-link`;
          symlinkSync(root, linkedRoot);
          const visit = (dir: string, real: string, depth: number): void => {
            if (depth > 4) return;
            for (const entry of readdirSync(dir, { withFileTypes: true })) {
              if (!entry.isDirectory()) continue;
              const child = join(dir, entry.name);
              const derived = realChild(real, entry.name);
              expect(derived).toBe(realpathSync.native(child));
              visit(child, derived ?? '', depth + 1);
            }
          };
          visit(linkedRoot, realpathSync.native(linkedRoot), 0);
          expect(realChild('/', 'x')).toBe('/x');
        },
      ),
      { numRuns: 60 },
    );
  });
});
