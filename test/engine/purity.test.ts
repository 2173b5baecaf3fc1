/** The engine is pure (STYLE.md habit 1): no fs, clock, env, randomness or network, no upward imports. */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const engineDir = resolve(fileURLToPath(new URL('../../src/engine', import.meta.url)));
const sources = readdirSync(engineDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(engineDir, file), 'utf8') }));

const FORBIDDEN = ['node:fs', "from 'fs'", 'from "fs"', 'process.', 'Date.now', 'new Date(', 'Math.random', 'fetch(', 'crypto', 'require(', 'setTimeout', 'performance.now'];

function importSpecifiers(text: string): string[] {
  return [...text.matchAll(/(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? '');
}

describe('engine purity', () => {
  it('has sources to check', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it('mentions no fs, env, clock, randomness or network API (comments included)', () => {
    const hits = sources.flatMap(({ file, text }) => FORBIDDEN.filter((needle) => text.includes(needle)).map((needle) => `${file}: ${needle}`));
    expect(hits).toEqual([]);
  });

  it('imports only its own files, the session model and zod; nothing from ingest, cli or simulate', () => {
    const outside = sources.flatMap(({ file, text }) =>
      importSpecifiers(text)
        .filter((specifier) => {
          if (specifier === 'zod') return false;
          if (!specifier.startsWith('.')) return true;
          const target = relative(engineDir, resolve(engineDir, file, '..', specifier));
          // The session model sits below the engine (STYLE.md "Shape of this project").
          return target.startsWith('..') && !target.startsWith('../session/');
        })
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(outside).toEqual([]);
    const all = sources.flatMap(({ text }) => importSpecifiers(text));
    expect(all.filter((s) => /(?:^|\/)(?:ingest|cli|simulate)(?:\/|$)/.test(s))).toEqual([]);
  });

  it('the library entry re-exports by name (no `export *`)', () => {
    const index = sources.find((s) => s.file === 'index.ts');
    expect(index?.text).toBeDefined();
    expect(index?.text).not.toMatch(/export\s+\*/);
  });
});
