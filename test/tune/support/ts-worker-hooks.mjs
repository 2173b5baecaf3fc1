// Module hooks for worker threads started from the TypeScript sources in tests: a relative `.js`
// import that does not exist resolves to the `.ts` file beside it, and `.ts` files are stripped of
// their types by Vite's transform (Oxc in Vite 8, esbuild before), which vitest already brings.
// Production workers run the compiled `dist/tune/sweep-worker.js` and never load this.
import { readFile } from 'node:fs/promises';
import * as vite from 'vite';

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:'))) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw error;
  }
}

async function stripTypes(source, file) {
  if ('transformWithOxc' in vite) return (await vite.transformWithOxc(source, file, { lang: 'ts' })).code;
  return (await vite.transformWithEsbuild(source, file, { loader: 'ts', format: 'esm', target: 'es2022' })).code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = new URL(url);
  const source = await readFile(file, 'utf8');
  return { format: 'module', source: await stripTypes(source, file.pathname), shortCircuit: true };
}
