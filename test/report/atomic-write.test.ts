import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/report/atomic-write.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'cachecost-atomic-'));
}

describe('writeFileAtomic', () => {
  it('writes a string and replaces an existing file, leaving no temporary file behind', async () => {
    const dir = tempDir();
    const path = join(dir, 'out.csv');
    writeFileSync(path, 'old');
    await writeFileAtomic(path, 'new content');
    expect(readFileSync(path, 'utf8')).toBe('new content');
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });

  it('writes lazily produced chunks, sync or async', async () => {
    const dir = tempDir();
    async function* chunks(): AsyncGenerator<string> {
      yield 'a,';
      yield 'b\n';
    }
    await writeFileAtomic(join(dir, 'x'), chunks());
    await writeFileAtomic(join(dir, 'y'), ['1', '2']);
    expect(readFileSync(join(dir, 'x'), 'utf8')).toBe('a,b\n');
    expect(readFileSync(join(dir, 'y'), 'utf8')).toBe('12');
  });

  it('keeps the previous file when producing the content fails, and reports IO_ERROR naming the path', async () => {
    const dir = tempDir();
    const path = join(dir, 'report.csv');
    writeFileSync(path, 'previous');
    function* failing(): Generator<string> {
      yield 'partial';
      throw new Error('disk full');
    }
    await expect(writeFileAtomic(path, failing())).rejects.toMatchObject({
      code: 'IO_ERROR',
      message: `cannot write ${path}: disk full`,
    });
    expect(readFileSync(path, 'utf8')).toBe('previous');
    expect(readdirSync(dir)).toEqual(['report.csv']);
  });

  it('reports a directory that does not exist as IO_ERROR', async () => {
    const path = join(tempDir(), 'missing', 'out.csv');
    await expect(writeFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'IO_ERROR' });
    expect(existsSync(path)).toBe(false);
  });
});
