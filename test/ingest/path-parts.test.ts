// The walk's path shortcuts (`src/ingest/path-parts.ts`) against `node:path`, on paths made of the
// pieces where the two could differ: separators doubled, leading or trailing, `.` and `..`, empty.
// Checked against deliberate bugs: `dirName` slicing a path whose only separator is its first
// character ('/a' → '' instead of '/'), and `childPrefix` accepting a directory with a `./` segment.
import fc from 'fast-check';
import { basename, dirname, join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseName, childPrefix, dirName } from '../../src/ingest/path-parts.js';

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
