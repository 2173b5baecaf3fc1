/**
 * What importing the package loads. `cachecost/engine` (package.json `exports`) must load the
 * engine alone, and the library entry must not load DuckDB (a ~100 MB native module, ~130 ms) or
 * vega: they load inside the use case that needs them, through a dynamic `import()`. Followed here
 * over the sources: every import that runs at load time (static imports and re-exports, not
 * `import type`, not a dynamic `import()`), transitively.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const srcDir = resolve(fileURLToPath(new URL('../../src', import.meta.url)));

/** Specifiers a module imports when it is loaded (type-only imports are erased, dynamic ones deferred). */
export function loadTimeImports(text: string): string[] {
  const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      statement.importClause?.isTypeOnly !== true &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      out.push(statement.moduleSpecifier.text);
    }
    if (
      ts.isExportDeclaration(statement) &&
      !statement.isTypeOnly &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      out.push(statement.moduleSpecifier.text);
    }
  }
  return out;
}

/** Packages (and Node built-ins) loaded by importing `entry`, and the source files on the way. */
function loadedBy(entry: string): { readonly files: Set<string>; readonly packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    if (!file.endsWith('.ts')) return;
    for (const specifier of loadTimeImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
      else
        packages.add(
          specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : (specifier.split('/')[0] ?? specifier),
        );
    }
  };
  visit(resolve(srcDir, entry));
  return { files, packages };
}

// Small pure-JS helpers (papaparse, cli-table3) may load; these may not.
const HEAVY = ['@duckdb/node-api', 'vega', 'vega-lite', 'yargs', 'cli-progress'];

describe('what importing the package loads', () => {
  it('cachecost/engine loads only engine files, the session model and zod', () => {
    const { files, packages } = loadedBy('engine/index.ts');
    expect(files.size).toBeGreaterThan(10);
    expect(
      [...files].filter((file) => !file.startsWith(`${srcDir}/engine/`) && !file.startsWith(`${srcDir}/session/`)),
    ).toEqual([]);
    expect([...packages]).toEqual(['zod']);
  });

  it('the library entry loads neither DuckDB nor vega (nor the CLI parser)', () => {
    const { files, packages } = loadedBy('index.ts');
    expect(files.size).toBeGreaterThan(50);
    expect([...packages].filter((name) => HEAVY.includes(name))).toEqual([]);
  });

  it('sees through a re-export and ignores `import type` and dynamic imports', () => {
    expect(
      loadTimeImports(
        "import type { A } from 'vega';\nconst m = await import('vega');\nexport { b } from './b.js';\nimport { type C } from 'zod';",
      ),
    ).toEqual(['./b.js', 'zod']);
  });
});
