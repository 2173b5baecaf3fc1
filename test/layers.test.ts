/**
 * The layers of `src/` (src/README.md): which folder may import which, and which packages each
 * folder may load. Every import of every source file (static, `export … from` and dynamic
 * `import()`, read with TypeScript's own pre-processor) is checked against these tables, so the
 * dependency direction cannot drift: a new edge is a deliberate edit of this table, in review.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const srcDir = resolve(fileURLToPath(new URL('../src', import.meta.url)));

/** The library entry `src/index.ts` (and any other file directly in `src/`). */
const ROOT = '(src root)';

/**
 * Folder → folders it may import, lowest layers first. Only downward edges: the table is checked
 * to be acyclic below, so two folders can never import each other.
 */
const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  session: [],
  format: [],
  provider: [],
  engine: ['session'],
  ingest: ['session'],
  cost: ['session', 'provider'],
  simulate: ['session', 'provider', 'engine', 'cost'],
  detect: ['session', 'format', 'provider', 'engine', 'cost', 'simulate'],
  tune: ['session', 'provider', 'engine', 'ingest', 'cost', 'simulate'],
  report: ['session', 'format', 'provider', 'cost', 'simulate', 'detect', 'tune'],
  // Use cases (bill, simulate, flags, tune): load, replay, price, detect; return report objects.
  usecases: ['session', 'ingest', 'cost', 'simulate', 'detect', 'tune', 'report'],
  // The CLI parses options (their vocabularies come from below), calls a use case and renders.
  cli: ['session', 'format', 'cost', 'simulate', 'detect', 'tune', 'report', 'usecases'],
  [ROOT]: ['session', 'provider', 'engine', 'ingest', 'cost', 'simulate', 'detect', 'tune', 'report', 'usecases'],
  // The dataset generator is a development tool (`npm run datasets`); it shares only the model.
  datagen: ['session'],
};

/** Pure folders (STYLE.md habit 1) load no Node built-in; the others may. */
const NODE_BUILTINS_ALLOWED = new Set(['ingest', 'cost', 'tune', 'report', 'usecases', 'cli', 'datagen']);

/**
 * Folder → npm packages it may load. DuckDB only in `cost`, vega only in `report`, yargs only in
 * `cli`: the engine and the library entry load neither (package.json `exports`).
 */
const ALLOWED_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  session: ['zod'],
  format: ['picocolors'],
  provider: [],
  engine: ['zod'],
  ingest: ['zod'],
  cost: ['zod', '@duckdb/node-api'],
  simulate: ['zod'],
  detect: ['zod'],
  tune: [],
  report: ['cli-table3', 'papaparse', 'vega', 'vega-lite'],
  usecases: [],
  cli: ['yargs', 'cli-progress'],
  [ROOT]: [],
  datagen: ['pure-rand'],
};

type Import = { readonly file: string; readonly from: string; readonly specifier: string };

function layerOf(pathInSrc: string): string {
  const parts = pathInSrc.split(sep);
  return parts.length === 1 ? ROOT : (parts[0] ?? ROOT);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtinModules.includes(packageName(specifier));

const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));

const imports: Import[] = files.flatMap((file) =>
  ts
    .preProcessFile(readFileSync(join(srcDir, file), 'utf8'), true, true)
    .importedFiles.map((imported) => ({ file, from: layerOf(file), specifier: imported.fileName })),
);

/** The folder a relative import lands in, or null for a package. */
function targetLayer({ file, specifier }: Import): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = relative(srcDir, resolve(srcDir, dirname(file), specifier));
  if (target.startsWith('..')) return `outside src (${target})`;
  return layerOf(target);
}

/** Violations of the tables, as `file: specifier (from → to)` lines. */
function layerViolations(list: readonly Import[]): string[] {
  return list.flatMap((entry) => {
    const to = targetLayer(entry);
    if (to === entry.from) return [];
    if (to !== null) {
      return ALLOWED_IMPORTS[entry.from]?.includes(to) === true
        ? []
        : [`${entry.file}: ${entry.specifier} (${entry.from} → ${to})`];
    }
    if (isBuiltin(entry.specifier)) {
      return NODE_BUILTINS_ALLOWED.has(entry.from)
        ? []
        : [`${entry.file}: ${entry.specifier} (node built-in in pure ${entry.from})`];
    }
    const name = packageName(entry.specifier);
    return ALLOWED_PACKAGES[entry.from]?.includes(name) === true
      ? []
      : [`${entry.file}: ${entry.specifier} (package not allowed in ${entry.from})`];
  });
}

describe('layers', () => {
  it('reads every source file and finds imports', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.length).toBeGreaterThan(500);
  });

  it('names every folder of src/ in the table (a new folder is a decision about its layer)', () => {
    const folders = readdirSync(srcDir).filter((entry) => statSync(join(srcDir, entry)).isDirectory());
    expect(folders.sort()).toEqual(
      Object.keys(ALLOWED_IMPORTS)
        .filter((layer) => layer !== ROOT)
        .sort(),
    );
    expect(Object.keys(ALLOWED_PACKAGES).sort()).toEqual(Object.keys(ALLOWED_IMPORTS).sort());
  });

  it('every folder of src/ has a README that says what its files do', () => {
    const folders = readdirSync(srcDir).filter((entry) => statSync(join(srcDir, entry)).isDirectory());
    expect(folders.filter((folder) => !existsSync(join(srcDir, folder, 'README.md')))).toEqual([]);
    expect(existsSync(join(srcDir, 'README.md'))).toBe(true);
  });

  it('the table only points down: no two folders can import each other, directly or in a circle', () => {
    const order: string[] = [];
    const visiting = new Set<string>();
    const visit = (layer: string, path: readonly string[]): void => {
      if (order.includes(layer)) return;
      if (visiting.has(layer)) throw new Error(`cycle in the layer table: ${[...path, layer].join(' → ')}`);
      visiting.add(layer);
      for (const below of ALLOWED_IMPORTS[layer] ?? []) visit(below, [...path, layer]);
      visiting.delete(layer);
      order.push(layer);
    };
    for (const layer of Object.keys(ALLOWED_IMPORTS)) visit(layer, []);
    expect(order).toHaveLength(Object.keys(ALLOWED_IMPORTS).length);
  });

  it('every import follows the table', () => {
    expect(layerViolations(imports)).toEqual([]);
  });

  it('catches a forbidden import (cost importing simulate, the old cycle)', () => {
    const planted: Import = {
      file: join('cost', 'price-table.ts'),
      from: 'cost',
      specifier: '../simulate/cache-model.js',
    };
    expect(layerViolations([planted])).toEqual([`${planted.file}: ${planted.specifier} (cost → simulate)`]);
    const duck: Import = { file: join('engine', 'tokens.ts'), from: 'engine', specifier: '@duckdb/node-api' };
    expect(layerViolations([duck])).toHaveLength(1);
  });
});
