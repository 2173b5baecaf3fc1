// The V8 code cache of the bundled core (src/cli/code-cache.ts): a cache is used only for the
// script it was made from, and a damaged one is never handed to V8 (which checks only the source's
// length, and its own checksum only in debug builds).
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCheck, runCachedScript, wordCheck } from '../../src/cli/code-cache.js';
import { coreCacheFile } from '../../src/cli/core-loader.js';
import { mutate } from '../ingest/mutate-bytes.js';

const scratch = mkdtempSync(join(tmpdir(), 'cachecost-code-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
/** A script file whose completion value is a function returning `answer`, as the core's (same length for every 4-digit answer). */
function scriptFile(answer: number): string {
  const file = join(scratch, `script-${(counter += 1)}.cjs`);
  writeFileSync(file, `(function answer() { return ${answer}; })`);
  return file;
}

function answerOf(run: { readonly value: unknown }): unknown {
  return (run.value as () => number)();
}

describe('runCachedScript', () => {
  it('compiles from source first, then runs from the cache it saved', () => {
    const file = scriptFile(1234);
    const cache = join(scratch, 'first', 'core.v8');
    const first = runCachedScript(file, 'build-a', cache);
    expect(first.fromCache).toBe(false);
    expect(answerOf(first)).toBe(1234);
    first.save();
    const second = runCachedScript(file, 'build-a', cache);
    expect(second.fromCache).toBe(true);
    expect(answerOf(second)).toBe(1234);
  });

  it('never runs the cache of another script of the same length (another build, or the file changed)', () => {
    const cache = join(scratch, 'other', 'core.v8');
    const file = scriptFile(1111);
    runCachedScript(file, 'build-a', cache).save();
    // Another build: same path, same length, other code and build id.
    writeFileSync(file, readFileSync(file, 'utf8').replace('1111', '2222'));
    const rebuilt = runCachedScript(file, 'build-b', cache);
    expect(rebuilt.fromCache).toBe(false);
    expect(answerOf(rebuilt)).toBe(2222);
    rebuilt.save();
    // Edited in place after the build (same build id, same length): its mtime says so.
    writeFileSync(file, readFileSync(file, 'utf8').replace('2222', '3333'));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const edited = runCachedScript(file, 'build-b', cache);
    expect(edited.fromCache).toBe(false);
    expect(answerOf(edited)).toBe(3333);
  });

  it('never hands V8 a cache file that was damaged or cut: the script runs from its source', () => {
    const file = scriptFile(4321);
    const cache = join(scratch, 'damaged', 'core.v8');
    runCachedScript(file, 'build-a', cache).save();
    const intact = readFileSync(cache);
    const step = fc.record({
      at: fc.nat(),
      op: fc.constantFrom('insert', 'replace', 'delete', 'truncate'),
      byte: fc.integer({ min: 0, max: 255 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 3 }), (steps) => {
        const damaged = mutate(intact, steps);
        fc.pre(!damaged.equals(intact));
        writeFileSync(cache, damaged);
        const run = runCachedScript(file, 'build-a', cache);
        expect(run.fromCache).toBe(false);
        expect(answerOf(run)).toBe(4321);
      }),
    );
  });

  it('never trusts a header line that differs from the one written, even where it parses alike (its padding)', () => {
    const file = scriptFile(2468);
    const cache = join(scratch, 'header', 'core.v8');
    runCachedScript(file, 'build-a', cache).save();
    const intact = readFileSync(cache);
    const newline = intact.indexOf(10);
    // Every single-byte deletion or space in the header line, the padding's included.
    for (let at = 0; at <= newline; at += 1) {
      for (const damaged of [
        Buffer.concat([intact.subarray(0, at), intact.subarray(at + 1)]),
        Buffer.concat([intact.subarray(0, at), Buffer.from(' '), intact.subarray(at)]),
      ]) {
        writeFileSync(cache, damaged);
        const run = runCachedScript(file, 'build-a', cache);
        expect(run.fromCache).toBe(false);
        expect(answerOf(run)).toBe(2468);
      }
    }
    writeFileSync(cache, intact);
    expect(runCachedScript(file, 'build-a', cache).fromCache).toBe(true);
  });

  it('never runs a cache file that others could have written', () => {
    const file = scriptFile(8765);
    const cache = join(scratch, 'shared', 'core.v8');
    runCachedScript(file, 'build-a', cache).save();
    expect(statSync(cache).mode & 0o077).toBe(0);
    chmodSync(cache, 0o646);
    const run = runCachedScript(file, 'build-a', cache);
    expect(run.fromCache).toBe(false);
    expect(answerOf(run)).toBe(8765);
    run.save();
    expect(runCachedScript(file, 'build-a', cache).fromCache).toBe(true);
  });

  it('runs without a cache file, and writes none, when given none', () => {
    const run = runCachedScript(scriptFile(5678), 'build-a', null);
    run.save();
    expect(run.fromCache).toBe(false);
    expect(answerOf(run)).toBe(5678);
  });
});

describe('wordCheck', () => {
  it('changes when any one byte changes, at any offset and alignment', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.nat({ max: 3 }),
        (bytes, at, delta, offset) => {
          const i = at % bytes.length;
          const changed = Uint8Array.from(bytes);
          changed[i] = ((changed[i] ?? 0) + delta) % 256;
          // The same bytes at another offset in their buffer give the same check.
          const shifted = new Uint8Array(bytes.length + offset);
          shifted.set(bytes, offset);
          expect(wordCheck(shifted.subarray(offset))).toBe(wordCheck(bytes));
          expect(wordCheck(changed)).not.toBe(wordCheck(bytes));
        },
      ),
    );
  });
});

describe('codeCheck', () => {
  // Checked against a deliberate bug: a CRC taken over all but the last byte fails at once.
  it('changes when any one byte changes, and names its algorithm (CRC-32, or wordCheck without it)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, delta) => {
          const changed = Uint8Array.from(bytes);
          const i = at % bytes.length;
          changed[i] = ((changed[i] ?? 0) + delta) % 256;
          expect(codeCheck(changed)).not.toBe(codeCheck(bytes));
          expect(codeCheck(changed, null)).not.toBe(codeCheck(bytes, null));
          expect(codeCheck(bytes, null)).toBe(`word:${wordCheck(bytes)}`);
          expect(codeCheck(bytes)).toMatch(/^(crc32:[0-9a-f]{8}|word:[0-9a-f]{16})$/);
          expect(codeCheck(bytes, null)).not.toBe(codeCheck(bytes));
        },
      ),
    );
  });
});

describe('coreCacheFile', () => {
  const env = { CACHECOST_CACHE_DIR: '/c' };
  it('lies under the cache directory, unless the command line turns the cache off', () => {
    expect(coreCacheFile(['report'], env, '/home/u')).toBe(join('/c', 'code-v1', 'core.v8'));
    for (const off of [['--no-cache'], ['--cache=false'], ['--cache', 'false'], ['--no-cache=true']])
      expect(coreCacheFile(['report', ...off], env, '/home/u')).toBeNull();
    expect(coreCacheFile(['report', '--cache=true'], env, '/home/u')).not.toBeNull();
  });

  it('is not made under a home that does not exist (the default location)', () => {
    expect(coreCacheFile(['report'], {}, join(scratch, 'no-such-home'))).toBeNull();
    expect(coreCacheFile(['report'], {}, scratch)).toBe(join(scratch, '.cache', 'cachecost', 'code-v1', 'core.v8'));
  });
});
