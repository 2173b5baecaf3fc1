// Bundles the CLI (run by `npm run build` after tsc): `dist/cli/main.js`, which tsc wrote, is
// replaced by an ESM bundle of `src/cli/main.ts` whose lazy imports (`import()` in the command
// handlers) become chunks in `dist/cli/chunks/`, loaded only when a command needs them. Most of a
// command's fixed cost was Node resolving, reading and compiling ~130 small modules one by one
// (ours and yargs'); a few dozen chunks cost a fraction of that (bench/startup.mjs).
//
// What stays as tsc wrote it: the library entry points (`dist/index.js`, `dist/engine/`), the
// `.d.ts` files, and every file that the CLI finds by a module-relative path: SQL files, the sweep
// worker (a worker thread loads its own module graph from `dist/tune/`), package.json, the ingest
// sources that the parse cache fingerprints. DuckDB (a native binary found beside its package)
// and vega (large, loaded only to draw charts) stay external packages.
import { build } from 'esbuild';
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const entry = join(root, 'src', 'cli', 'main.ts');
const outdir = join(root, 'dist', 'cli');
const chunkDir = join(outdir, 'chunks');
const posix = (path) => path.split(sep).join('/');

/**
 * Packages' files that read `import.meta.url`, and what it must become in a chunk. yargs' platform
 * shim finds its locales (translated help and messages under $LANG) and the nearest package.json
 * from its own location: it gets the URL it has in the installed yargs package, resolved at run
 * time as Node resolves the package itself. yargs-parser only passes it to `createRequire` for
 * `.config()` files given by absolute path, which this CLI does not use: left as it is. A package
 * file not listed here fails the build, so that an upgrade that adds one is looked at.
 */
const YARGS_SHIM = 'node_modules/yargs/lib/platform-shims/esm.mjs';
const PACKAGE_URLS = {
  [YARGS_SHIM]: {
    prelude: [
      "import { createRequire as __yargsRequire } from 'node:module';",
      "import { pathToFileURL as __yargsFileUrl } from 'node:url';",
      "const __yargsShimUrl = new URL('lib/platform-shims/esm.mjs', __yargsFileUrl(__yargsRequire(import.meta.url).resolve('yargs/package.json'))).href;",
    ].join('\n'),
    url: '__yargsShimUrl',
  },
  'node_modules/yargs-parser/build/lib/index.js': null,
};

/**
 * A module of ours that finds a file by `import.meta.url` would look beside its chunk, not beside
 * its tsc output. In each such source file, `import.meta.url` is replaced by the URL that tsc's
 * output of the same file has (`dist/<same path>.js`), computed from the chunk's own URL at run
 * time, so every module-relative path resolves exactly as in the unbundled build. This holds for
 * modules in `dist/cli/chunks/`; the entry (`main.ts`) is written to `dist/cli/main.js`, where tsc
 * writes it, and keeps `import.meta.url` as it is. Both are checked after bundling (metafile).
 */
const rewritten = new Set();

/**
 * yargs' platform shim imports cliui and string-width, whose copies build Unicode-property
 * regular expressions and an `Intl.Segmenter` when imported (~25 ms), and uses them only to lay
 * out help text. In the bundle the shim gets, for each, a function that requires the package on
 * first call (esbuild evaluates a `require`d module lazily, on its first `require`): a command
 * that prints no help never evaluates them. The shim's text is left as it is.
 */
const LAZY_FROM_SHIM = new Set(['cliui', 'string-width']);
const lazyShimImportsPlugin = {
  name: 'lazy-yargs-layout',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(cliui|string-width)$/ }, async (args) => {
      if (args.pluginData === 'real' || posix(relative(root, args.importer)) !== YARGS_SHIM) return undefined;
      if (!LAZY_FROM_SHIM.has(args.path)) return undefined;
      // Where the package is (this callback is skipped for this inner lookup).
      const real = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'real',
      });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-yargs-layout' };
    });
    // The package itself, required from that function, is an ordinary file.
    pluginBuild.onResolve({ filter: /.*/, namespace: 'lazy-yargs-layout' }, (args) => ({ path: args.path }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-yargs-layout' }, (args) => ({
      contents: `export default (...args) => require(${JSON.stringify(args.path)}).default(...args);`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
const moduleUrlPlugin = {
  name: 'module-relative-urls',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (args.path === entry || !source.includes('import.meta.url')) return undefined;
      const path = posix(relative(root, args.path));
      let prelude = '';
      let url;
      if (path.startsWith('src/')) {
        url = `new URL(${JSON.stringify(posix(relative(chunkDir, join(root, 'dist', path.slice(4).replace(/\.ts$/, '.js')))))}, import.meta.url).href`;
      } else if (path in PACKAGE_URLS) {
        if (PACKAGE_URLS[path] === null) return undefined;
        ({ prelude, url } = PACKAGE_URLS[path]);
      } else {
        throw new Error(`${path} reads import.meta.url: decide in scripts/bundle-cli.mjs what it must be in a chunk`);
      }
      rewritten.add(path);
      return {
        contents: `${prelude}\n${source.replaceAll('import.meta.url', `(${url})`)}`,
        loader: path.endsWith('.ts') ? 'ts' : 'js',
      };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@duckdb/node-api', 'vega', 'vega-lite'],
  // CommonJS packages (cli-table3, papaparse, cli-progress) `require` Node's own modules.
  banner: {
    js: "import { createRequire as __cachecostRequire } from 'node:module';\nconst require = __cachecostRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [lazyShimImportsPlugin, moduleUrlPlugin],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// Every rewritten module must have landed in a chunk (its rewrite assumes the chunk directory).
for (const [output, meta] of Object.entries(result.metafile.outputs)) {
  const inChunkDir = dirname(resolve(root, output)) === chunkDir;
  for (const input of Object.keys(meta.inputs)) {
    if (rewritten.has(input) && !inChunkDir)
      throw new Error(`${input} reads files by import.meta.url but was bundled into ${output}, outside ${chunkDir}`);
  }
}

// The parse cache's code fingerprint, hashed once here rather than on every run: a manifest beside
// the entry that a run checks by file sizes (`FINGERPRINT_MANIFEST` in src/ingest/parse-cache.ts).
// Written last, when every file it describes is in place.
const parseCache = await import(pathToFileURL(join(root, 'dist', 'ingest', 'parse-cache.js')).href);
await writeFile(
  join(outdir, parseCache.FINGERPRINT_MANIFEST),
  JSON.stringify(parseCache.fingerprintManifest(join(outdir, 'main.js'))),
);
