/**
 * The engine is pure (STYLE.md habit 1): no fs, clock, env, randomness or network. What it may
 * import (its own files, the session model, zod) is in the layer table of `test/layers.test.ts`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const engineDir = resolve(fileURLToPath(new URL('../../src/engine', import.meta.url)));
const sources = readdirSync(engineDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(engineDir, file), 'utf8') }));

const FORBIDDEN = [
  'node:fs',
  "from 'fs'",
  'from "fs"',
  'process.',
  'Date.now',
  'new Date(',
  'Math.random',
  'fetch(',
  'crypto',
  'require(',
  'setTimeout',
  'performance.now',
];

describe('engine purity', () => {
  it('has sources to check', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it('mentions no fs, env, clock, randomness or network API (comments included)', () => {
    const hits = sources.flatMap(({ file, text }) =>
      FORBIDDEN.filter((needle) => text.includes(needle)).map((needle) => `${file}: ${needle}`),
    );
    expect(hits).toEqual([]);
  });

  it('the library entry re-exports by name (no `export *`)', () => {
    const index = sources.find((s) => s.file === 'index.ts');
    expect(index?.text).toBeDefined();
    expect(index?.text).not.toMatch(/export\s+\*/);
  });
});
