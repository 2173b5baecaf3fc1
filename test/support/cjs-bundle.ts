/**
 * Bundles a CommonJS entry with esbuild, in memory, and runs it in this process: for the tests
 * that hold a bundle plugin (`scripts/*.mjs`) to the packages as published, each bundled with and
 * without it.
 */
import { build, type Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';

/** `module.exports` of the bundle of `contents` (resolved from `resolveDir`, through `plugins`). */
export async function runCjsBundle(contents: string, resolveDir: string, plugins: Plugin[]): Promise<unknown> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
    plugins,
  });
  const text = result.outputFiles[0]?.text;
  if (text === undefined) throw new Error('esbuild gave no bundle');
  const run = runInThisContext(`(function (module, exports, require) {\n${text}\n})`) as (
    module: { exports: unknown },
    exports: unknown,
    require: NodeJS.Require,
  ) => void;
  const module: { exports: unknown } = { exports: {} };
  run(module, module.exports, createRequire(import.meta.url));
  return module.exports;
}
