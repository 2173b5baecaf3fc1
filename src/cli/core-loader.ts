/**
 * The bundled CLI's core as the build lays it out (`scripts/bundle-cli.mjs`): `chunks/core.js` is a
 * small ES module that runs this loader and re-exports what the core exports; the core itself is
 * `chunks/core-body.cjs`, one function expression taking (`exports`, `require`, `module`, the URL
 * of `core.js`, which stands in for its `import.meta.url`, and an `import()` that resolves from
 * `core.js`). It is compiled through a V8 code cache (`code-cache.ts`) in the user's cache
 * directory, saved when the process exits. Like `main.ts`, this runs before the CLI, so it reads
 * the process's arguments and environment itself.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './cache-root.js';
import { runCachedScript } from './code-cache.js';

/** The core's file in the chunk directory. */
export const CORE_BODY = 'core-body.cjs';
/** The code cache's folder under the cache directory (its layout's version). */
const LAYOUT = 'code-v1';

/**
 * Whether the command line turns the cache off (`--no-cache`, `--cache=false`, `--cache false`).
 * Read before yargs is loaded, so it errs towards off: an argument that merely looks like it costs
 * only the speed.
 */
function cacheOff(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      arg.startsWith('--no-cache') ||
      (arg.startsWith('--cache=') && arg !== '--cache=true') ||
      (arg === '--cache' && argv[i + 1] === 'false'),
  );
}

/**
 * The core's code cache file: under the cache directory the parse cache uses (`cache-root.ts`);
 * null when the command line turns the cache off or the default location's home does not exist.
 */
export function coreCacheFile(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): string | null {
  if (cacheOff(argv)) return null;
  const { dir, mustExist } = cacheRoot(env, homeDir);
  if (mustExist !== null)
    try {
      if (!statSync(mustExist).isDirectory()) return null;
    } catch {
      return null;
    }
  return join(dir, LAYOUT, 'core.v8');
}

type CoreBody = (
  exports: Record<string, unknown>,
  require: NodeJS.Require,
  module: { exports: Record<string, unknown> },
  coreUrl: string,
  coreImport: (specifier: string) => Promise<unknown>,
) => void;

/**
 * Runs the core beside `coreUrl` (the URL of `chunks/core.js`), built as `buildId` (the build's
 * hash of `core-body.cjs`), and returns its exports.
 */
export function loadCore(
  coreUrl: string,
  buildId: string,
  coreImport: (specifier: string) => Promise<unknown>,
): Record<string, unknown> {
  const body = fileURLToPath(new URL(`./${CORE_BODY}`, coreUrl));
  const run = runCachedScript(body, buildId, coreCacheFile(process.argv.slice(2), process.env, homedir()));
  const module = { exports: {} as Record<string, unknown> };
  (run.value as CoreBody)(module.exports, createRequire(coreUrl), module, coreUrl, coreImport);
  // At exit the functions the command ran are compiled: the cache holds them too.
  process.once('exit', run.save);
  return module.exports;
}
