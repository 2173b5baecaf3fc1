// Bundles the CLI (run by `npm run build` after tsc): `dist/cli/main.js`, which tsc wrote, is
// replaced by a small ESM entry that answers `--version` itself and otherwise imports
// `dist/cli/chunks/core.js`; the rest of the CLI is in chunks loaded only when a command needs them.
// Most of a command's fixed cost was Node loading modules one by one: resolving, reading, compiling
// and linking each file (bench/startup.mjs). Three esbuild builds:
// - the core (`chunks/core.js`, one file): yargs, every command's options, and every module that
//   `report` and `sessions` run on their common path (`CORE_ROOTS` and what they import). A split
//   build put the same modules in ~50 chunks, one per set of lazy imports sharing them, and a warm
//   `report` spent ~60 ms more CPU loading them;
// - the lazy modules (every module the core imports with `import()` and does not hold itself), split
//   into chunks among themselves. A core module they import is not bundled again: they import it
//   from `core.js` (one instance: `instanceof`, module state), through a small proxy;
// - the entry, `main.js`.
//
// What stays as tsc wrote it: the library entry points (`dist/index.js`, `dist/engine/`), the
// `.d.ts` files, and every file that the CLI finds by a module-relative path: SQL files, the sweep
// worker (a worker thread loads its own module graph from `dist/tune/`), package.json, the ingest
// sources that the parse cache fingerprints. The Claude Code parse worker's entry gets, besides
// tsc's file, a one-file bundle beside it (step 6), which the CLI starts. DuckDB (a native binary
// found beside its package) and vega (large, loaded only to draw charts) stay external packages.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { cliTable3FastPathsPlugin } from './cli-table3-patch.mjs';
import { lazyStringWidthPlugin } from './string-width-lazy.mjs';

const root = resolve(import.meta.dirname, '..');
/** The bundled parse worker's file name (`PARSE_WORKER_BUNDLE` in src/ingest/claude-code/parse-ahead.ts). */
const PARSE_WORKER_BUNDLE = 'parse-worker.bundle.js';
/** The bundled simulate replay worker's file name (`REPLAY_WORKER_BUNDLE` in src/usecases/simulate-share.ts). */
const REPLAY_WORKER_BUNDLE = 'simulate-worker.bundle.js';
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
/**
 * Where Node's `require.resolve('yargs/package.json')` finds it, without its resolver: ~3 ms of
 * every command, mostly the `exports` map's resolution run cold (URL objects, the ESM resolver's
 * helpers). The same answer: Node takes the first of the lookup directories (`resolve.paths`)
 * holding `yargs/package.json`, and maps the subpath through `exports`, which maps
 * `./package.json` to itself (checked below, at build time), then gives the real path. Found
 * nowhere, Node's own resolver is asked (and throws as it would).
 */
const YARGS_PACKAGE_LOOKUP = [
  "import { createRequire as __yargsRequire } from 'node:module';",
  "import { realpathSync as __yargsRealpath, statSync as __yargsStat } from 'node:fs';",
  "import { join as __yargsJoin } from 'node:path';",
  "import { pathToFileURL as __yargsFileUrl } from 'node:url';",
  'const __yargsPackage = (() => {',
  '  const require = __yargsRequire(import.meta.url);',
  "  for (const dir of require.resolve.paths('yargs') ?? []) {",
  "    const path = __yargsJoin(dir, 'yargs', 'package.json');",
  '    try {',
  '      if (__yargsStat(path).isFile()) return __yargsRealpath(path);',
  '    } catch {',
  '      // Not here (or not readable): the next directory, as Node goes on.',
  '    }',
  '  }',
  "  return require.resolve('yargs/package.json');",
  '})();',
].join('\n');
{
  const yargsExports = JSON.parse(await readFile(join(root, 'node_modules', 'yargs', 'package.json'), 'utf8')).exports;
  if (yargsExports?.['./package.json'] !== './package.json')
    throw new Error('yargs no longer exports ./package.json as itself: look again at YARGS_PACKAGE_LOOKUP');
}
const PACKAGE_URLS = {
  [YARGS_SHIM]: {
    prelude: [
      YARGS_PACKAGE_LOOKUP,
      "const __yargsShimUrl = new URL('lib/platform-shims/esm.mjs', __yargsFileUrl(__yargsPackage)).href;",
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
 * Resolves an import as esbuild would, from inside a plugin's own `onResolve`: `marker` is passed as
 * the lookup's `pluginData`, so that the plugin's callback sees its own lookup and lets it through.
 */
const resolveAgain = (pluginBuild, args, marker) =>
  pluginBuild.resolve(args.path, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    pluginData: marker,
  });

/**
 * yargs' platform shim imports cliui and string-width, whose copies build Unicode-property
 * regular expressions and an `Intl.Segmenter` when imported (~25 ms), and uses them only to lay
 * out help text. They are bundled apart, as CommonJS (`HELP_LAYOUT` in the chunk directory, ~60 KB
 * that no other command compiles), and the shim gets, for each, a function that requires that file
 * on first call: a command that prints no help never loads them. The shim's text is left as it is.
 */
const LAZY_FROM_SHIM = new Map([
  ['cliui', 'cliui'],
  ['string-width', 'stringWidth'],
]);
const HELP_LAYOUT = 'help-layout.cjs';
const lazyShimImportsPlugin = {
  name: 'lazy-yargs-layout',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(cliui|string-width)$/ }, async (args) => {
      if (args.pluginData === 'real' || posix(relative(root, args.importer)) !== YARGS_SHIM) return undefined;
      if (!LAZY_FROM_SHIM.has(args.path)) return undefined;
      // Where the package is (this callback is skipped for this inner lookup).
      const real = await resolveAgain(pluginBuild, args, 'real');
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-yargs-layout', pluginData: args.path };
    });
    // The file that function requires is not bundled: it sits beside the chunk (the banner's
    // `require` resolves from the chunk's own URL).
    pluginBuild.onResolve({ filter: /.*/, namespace: 'lazy-yargs-layout' }, (args) => ({
      path: args.path,
      external: true,
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-yargs-layout' }, (args) => ({
      contents: `export default (...args) => require(${JSON.stringify(`./${HELP_LAYOUT}`)}).${LAZY_FROM_SHIM.get(args.pluginData)}(...args);`,
      loader: 'js',
    }));
  },
};
/**
 * The shim also imports Node's `assert` (~4 ms to load: its error classes and diff renderer) for
 * two checks that only a yargs bug fails. It gets the same two functions (`Object.is`, as
 * `assert.strictEqual`), which throw a plain `Error`.
 */
const shimAssertPlugin = {
  name: 'yargs-shim-assert',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      posix(relative(root, args.importer)) === YARGS_SHIM
        ? { path: 'assert', namespace: 'yargs-shim-assert' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'yargs-shim-assert' }, () => ({
      contents: [
        'const fail = (message, fallback) => { throw message instanceof Error ? message : new Error(message ?? fallback); };',
        "export const strictEqual = (actual, expected, message) => Object.is(actual, expected) || fail(message, 'Expected values to be strictly equal');",
        "export const notStrictEqual = (actual, expected, message) => !Object.is(actual, expected) || fail(message, 'Expected values to be strictly unequal');",
      ].join('\n'),
      loader: 'js',
    }));
  },
};
/** Rewrites `import.meta.url` for modules bundled into a file in `bundleDir` (see `rewritten`). */
const moduleUrls = (bundleDir) => ({
  name: 'module-relative-urls',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (args.path === entry || !source.includes('import.meta.url')) return undefined;
      const path = posix(relative(root, args.path));
      let prelude = '';
      let url;
      if (path.startsWith('src/')) {
        url = `new URL(${JSON.stringify(posix(relative(bundleDir, join(root, 'dist', path.slice(4).replace(/\.ts$/, '.js')))))}, import.meta.url).href`;
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
});
const moduleUrlPlugin = moduleUrls(chunkDir);

/**
 * What `report` and `sessions` run on their common path (their handlers' `import()`s), held in the
 * core with everything they import. Anything else the core imports with `import()` is a lazy module.
 */
const CORE_ROOTS = [
  'src/cli/app.ts',
  'src/cli/default-paths.ts',
  'src/cli/ingest-report.ts',
  'src/cli/parse-cache-dir.ts',
  'src/cli/run-context.ts',
  'src/usecases/bill.ts',
  'src/usecases/for-each-session.ts',
  'src/usecases/prices.ts',
  'src/cost/bill-aggregate.ts',
  'src/simulate/to-rows.ts',
  'src/report/bill-json.ts',
  'src/session/summary.ts',
  'src/report/session-summary.ts',
];
const CORE_FILE = 'core.js';
/** The core's code, run by `src/cli/core-loader.ts` (whose `CORE_BODY` names it too). */
const CORE_BODY = 'core-body.cjs';

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@duckdb/node-api', 'vega', 'vega-lite'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
};
/**
 * zod's message languages: `zod` re-exports all of its ~40 locales (`z.locales`, ≈ 360 KB of the
 * ≈ 755 KB chunk that holds zod, parsed by every run that loads it); the CLI uses none of them but
 * English, which zod installs itself (`config(en())`, imported on its own). Only English is
 * bundled: importing the chunk took ≈ 59 → 39 ms (bench/README.md, sim13). A source that named
 * zod's locales would find only `en`: the build fails if one does (checked below).
 */
const zodEnglishOnlyPlugin = {
  name: 'zod-english-only',
  setup(pluginBuild) {
    const zodDir = `${sep}node_modules${sep}zod${sep}v4${sep}`;
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(zodDir)
        ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-english' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};
{
  for (const entry of await readdir(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (
      /\bz\.locales\b|\bzod(?:\/v4)?(?:\/core)?\/locales\b|\blocales\s*\}\s*from\s*['"]zod/.test(
        await readFile(path, 'utf8'),
      )
    )
      throw new Error(`${path} names zod's locales, which the bundle holds only in English (zodEnglishOnlyPlugin)`);
  }
}
/**
 * strip-ansi 6 (cli-table3 measures every cell through string-width, which strips colour codes
 * with it) builds its pattern anew on every call, `string.replace(ansiRegex(), '')`: ≈ 10 µs a
 * call, ≈ 80 ms of a 577-row table (bench/README.md, fixed15). The bundle builds it once, as
 * strip-ansi 7 does: `replace` with a global pattern starts at 0 and leaves `lastIndex` at 0, so
 * one pattern serves every call. The same answer for every input; a strip-ansi whose source is
 * not the one known here fails the build, so that an upgrade is looked at.
 */
const STRIP_ANSI_6_EXPORT =
  "module.exports = string => typeof string === 'string' ? string.replace(ansiRegex(), '') : string;";
const STRIP_ANSI_6 = ["'use strict';", "const ansiRegex = require('ansi-regex');", '', STRIP_ANSI_6_EXPORT, ''].join(
  '\n',
);
const stripAnsiOncePlugin = {
  name: 'strip-ansi-once',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]strip-ansi[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      // strip-ansi 7 and later build the pattern once already (and are ES modules).
      if (!source.includes('ansiRegex()')) return undefined;
      if (source !== STRIP_ANSI_6)
        throw new Error(`${args.path}: not the strip-ansi 6 source stripAnsiOncePlugin rewrites; look at it again`);
      return {
        contents: source.replace(
          STRIP_ANSI_6_EXPORT,
          `const pattern = ansiRegex();\n${STRIP_ANSI_6_EXPORT.replace('ansiRegex()', 'pattern')}`,
        ),
        loader: 'js',
      };
    });
  },
};
// CommonJS packages (cli-table3, papaparse, cli-progress) `require` Node's own modules.
const banner = {
  js: "import { createRequire as __cachecostRequire } from 'node:module';\nconst require = __cachecostRequire(import.meta.url);",
};

/** The core's entry: what main.js takes from it, then `more` (lines of JS). */
function coreEntryPlugin(more) {
  return {
    name: 'core-entry',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^core-entry$/ }, () => ({ path: 'core-entry', namespace: 'core-entry' }));
      pluginBuild.onLoad({ filter: /.*/, namespace: 'core-entry' }, () => ({
        contents: [
          "export { runCli } from './src/cli/app.ts';",
          "export { hideBin } from 'yargs/helpers';",
          ...more,
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * Resolves each `import()` as esbuild would and hands the file to `decide`, which returns what to
 * make of it (undefined: bundle it).
 */
function dynamicImportsPlugin(decide) {
  return {
    name: 'dynamic-imports',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData === 'inner') return undefined;
        const resolved = await resolveAgain(pluginBuild, args, 'inner');
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external) return { path: args.path, external: true };
        return decide(resolved.path);
      });
    },
  };
}

/** A metafile input's absolute path (null for a module of a plugin's own namespace). */
const inputPath = (input) => (/^[\w-]+:/.test(input) ? null : resolve(root, input));

for (const path of CORE_ROOTS)
  if (
    !(await readFile(join(root, path)).then(
      () => true,
      () => false,
    ))
  )
    throw new Error(`core root ${path} not found`);

// 1. The core's modules, and the lazy modules it imports.
const lazyRoots = new Set();
const analysis = await build({
  ...common,
  entryPoints: ['core-entry'],
  outdir,
  write: false,
  plugins: [
    coreEntryPlugin(CORE_ROOTS.map((path) => `import ${JSON.stringify(`./${path}`)};`)),
    dynamicImportsPlugin((path) => {
      lazyRoots.add(path);
      return { path, external: true };
    }),
    lazyShimImportsPlugin,
    shimAssertPlugin,
    moduleUrlPlugin,
  ],
});
const coreModules = new Map();
for (const [input, meta] of Object.entries(analysis.metafile.inputs)) {
  const path = inputPath(input);
  if (path !== null) coreModules.set(path, meta.format);
}
for (const path of coreModules.keys()) lazyRoots.delete(path);

// 2. The names each ES module of the core exports (a lazy module imports them from the core).
const coreEsm = [...coreModules].filter(([, format]) => format === 'esm').map(([path]) => path);
const exportsOf = new Map();
const named = await build({
  ...common,
  entryPoints: coreEsm,
  outdir,
  write: false,
  splitting: true,
  plugins: [
    dynamicImportsPlugin((path) => ({ path, external: true })),
    lazyShimImportsPlugin,
    shimAssertPlugin,
    moduleUrlPlugin,
  ],
});
for (const meta of Object.values(named.metafile.outputs))
  if (meta.entryPoint !== undefined) exportsOf.set(resolve(root, meta.entryPoint), meta.exports);

// 3. The lazy modules, split among themselves; a core module they import comes from core.js through a proxy.
/** Core module → the name of its namespace among core.js's exports. */
const proxied = new Map();
/**
 * A core module's namespace name, from its path: the same on every build (proxies are loaded in
 * whatever order esbuild's callbacks finish, so a counter would number them differently each time
 * and two builds of the same code would differ).
 */
const proxyNames = new Map();
function proxyName(path) {
  const name = `__core_${posix(relative(root, path)).replace(/[^\w]/g, '_')}`;
  const holder = proxyNames.get(name) ?? path;
  if (holder !== path) throw new Error(`${path} and ${holder} would share the proxy name ${name}`);
  proxyNames.set(name, path);
  return name;
}
/** An exported binding that can be reassigned (`export let x`, `export var x`). */
const MUTABLE_EXPORT = /^\s*export\s+(let|var)\s/m;
const proxyPlugin = {
  name: 'core-proxies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
      if (args.namespace === 'core-proxy') return { path: args.path, external: true };
      if (args.pluginData === 'inner' || (args.kind !== 'import-statement' && args.kind !== 'dynamic-import'))
        return undefined;
      const resolved = await resolveAgain(pluginBuild, args, 'inner');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // A CommonJS package is bundled again where it is needed (it has no ES namespace to share).
      return exportsOf.has(resolved.path) ? { path: resolved.path, namespace: 'core-proxy' } : undefined;
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'core-proxy' }, async (args) => {
      // The proxy copies the core module's bindings once, when it is evaluated: a binding the module
      // reassigns later would be seen stale through it. No core module exports one; this keeps it so.
      if (MUTABLE_EXPORT.test(await readFile(args.path, 'utf8')))
        throw new Error(`${args.path} exports a let or var binding, which a lazy module's proxy would copy stale`);
      proxied.set(args.path, proxyName(args.path));
      const names = exportsOf.get(args.path) ?? [];
      const lines = [`import { ${proxied.get(args.path)} as __coreModule } from './${CORE_FILE}';`];
      if (names.includes('default')) lines.push('export default __coreModule.default;');
      const plain = names.filter((name) => name !== 'default');
      if (plain.length > 0) lines.push(`export const { ${plain.join(', ')} } = __coreModule;`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};
const lazy = await build({
  ...common,
  // Sorted: the set fills in whatever order esbuild's callbacks finish, and chunk names follow the entry order.
  entryPoints: [...lazyRoots].sort(),
  outdir,
  entryNames: 'chunks/[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  banner,
  plugins: [
    proxyPlugin,
    zodEnglishOnlyPlugin,
    stripAnsiOncePlugin,
    cliTable3FastPathsPlugin,
    lazyShimImportsPlugin,
    moduleUrlPlugin,
  ],
});
/** Lazy module → its file in the chunk directory. */
const lazyFiles = new Map();
for (const [output, meta] of Object.entries(lazy.metafile.outputs))
  if (meta.entryPoint !== undefined)
    lazyFiles.set(resolve(root, meta.entryPoint), relative(chunkDir, resolve(root, output)));

// 4. The core: one file; its `import()`s of lazy modules name their chunks.
const core = await build({
  ...common,
  entryPoints: { [`chunks/${CORE_FILE.replace(/\.js$/, '')}`]: 'core-entry' },
  outdir,
  write: false,
  banner,
  plugins: [
    coreEntryPlugin(
      [...proxied]
        .sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([path, name]) => `export * as ${name} from ${JSON.stringify(path)};`),
    ),
    dynamicImportsPlugin((path) => {
      const file = lazyFiles.get(path);
      if (file !== undefined) return { path: `./${posix(file)}`, external: true };
      if (!coreModules.has(path)) throw new Error(`${path}: imported by the core, but neither in it nor a lazy module`);
      return undefined;
    }),
    lazyShimImportsPlugin,
    shimAssertPlugin,
    moduleUrlPlugin,
  ],
});

// 4b. The core as a script run through a V8 code cache (src/cli/core-loader.ts): `core-body.cjs`,
// one function expression, compiled by `vm.Script`; `core.js`, the module that lazy chunks and
// main.js import, runs the loader and re-exports what the core exports. ES modules cannot take a
// code cache on Node 20, and compiling the core is ~25-35 ms of every command. The cache is the
// user's (made by the first run): one made here would differ from build to build.
const coreOutput = core.outputFiles.find((file) => file.path === join(chunkDir, CORE_FILE));
if (coreOutput === undefined || core.outputFiles.length !== 1)
  throw new Error('the core build must give core.js alone');
const coreMeta = core.metafile.outputs[posix(relative(root, coreOutput.path))];
if (coreMeta === undefined) throw new Error('no metafile entry for core.js');
const bannerLines = `${banner.js}\n`;
if (!coreOutput.text.startsWith(bannerLines)) throw new Error('core.js does not start with the banner');
// Its `import()`s of lazy chunks resolve from core.js, as before; `require` is passed in.
const dynamicImport = /\bimport\((?="\.\/[\w-]+\.js"\))/g;
const lazyImports = coreMeta.imports.filter((imported) => imported.kind === 'dynamic-import').length;
const coreModuleText = coreOutput.text.slice(bannerLines.length).replace(dynamicImport, '__coreImport(');
const coreScript = await transform(coreModuleText, {
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__coreUrl' },
  logLevel: 'silent',
});
if (coreScript.warnings.length > 0)
  throw new Error(`core as a script: ${coreScript.warnings.map((warning) => warning.text).join('; ')}`);
const replaced = (coreOutput.text.match(dynamicImport) ?? []).length;
if (replaced !== lazyImports || /\bimport\s*\(|\bimport\.meta\b/.test(coreScript.code))
  throw new Error(`core as a script: ${replaced} of ${lazyImports} import() rewritten, or import()/import.meta left`);
// ASCII only: one non-ASCII character (esbuild escapes them in code, but keeps some comments as
// written, e.g. "→" in a field's doc comment) makes V8 hold the whole ~575 KB source as a two-byte
// string on every run: decoded from UTF-8 rather than copied, twice the memory, and scanned as
// two-byte wherever a function is compiled from source. Those characters become "?"; that they
// were all in comments is checked: minified (comments dropped), both texts must be the same code.
// (Raw control characters other than tabs and line breaks are replaced and checked the same way.)
const NON_ASCII = /[^\t\n\r\x20-\x7e]/g;
let coreCode = coreScript.code;
if (NON_ASCII.test(coreCode)) {
  const ascii = coreCode.replace(NON_ASCII, '?');
  const minified = await Promise.all(
    [coreCode, ascii].map((code) =>
      transform(code, { format: 'cjs', platform: 'node', target: 'node20', minify: true, logLevel: 'silent' }),
    ),
  );
  if (minified[0].code !== minified[1].code)
    throw new Error('core as a script: a non-ASCII character outside a comment (esbuild should have escaped it)');
  coreCode = ascii;
}
const coreBody = `(function (exports, require, module, __coreUrl, __coreImport) {\n"use strict";\n${coreCode}})\n`;
await writeFile(join(chunkDir, CORE_BODY), coreBody);
const coreBuildId = createHash('sha256').update(coreBody).digest('hex');
const coreExports = [...coreMeta.exports].sort();
await build({
  ...common,
  stdin: {
    contents: [
      `import { loadCore } from './src/cli/core-loader.ts';`,
      `const core = loadCore(import.meta.url, ${JSON.stringify(coreBuildId)}, (specifier) => import(specifier));`,
      `export const { ${coreExports.join(', ')} } = core;`,
    ].join('\n'),
    resolveDir: root,
    sourcefile: 'core-loader-entry.js',
    loader: 'js',
  },
  outfile: join(chunkDir, CORE_FILE),
});

// yargs' help layout, required by the core when help is printed (`lazyShimImportsPlugin`): the
// packages as the shim resolves them.
await build({
  ...common,
  stdin: {
    contents: [...LAZY_FROM_SHIM].map(([pkg, name]) => `export { default as ${name} } from '${pkg}';`).join('\n'),
    resolveDir: dirname(join(root, YARGS_SHIM)),
    loader: 'js',
  },
  format: 'cjs',
  outfile: join(chunkDir, HELP_LAYOUT),
  // Printable ASCII measured without loading string-width (scripts/string-width-lazy.mjs).
  plugins: [lazyStringWidthPlugin, moduleUrlPlugin],
});

// 5. The entry: `--version` alone, or the core.
const main = await build({
  ...common,
  entryPoints: { main: entry },
  outdir,
  plugins: [
    {
      name: 'entry-imports',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^(\.\/app\.js|yargs\/helpers)$/ }, (args) =>
          args.importer === entry ? { path: `./chunks/${CORE_FILE}`, external: true } : undefined,
        );
      },
    },
  ],
});
const entryInputs = Object.values(main.metafile.outputs).flatMap((meta) => Object.keys(meta.inputs));
if (entryInputs.some((input) => inputPath(input) !== entry))
  throw new Error(`main.js must hold only ${entry}, not ${entryInputs.join(', ')}`);

// Every rewritten module must have landed in a chunk (its rewrite assumes the chunk directory).
for (const result of [lazy, core, main])
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const inChunkDir = dirname(resolve(root, output)) === chunkDir;
    for (const input of Object.keys(meta.inputs)) {
      if (rewritten.has(input) && !inChunkDir)
        throw new Error(`${input} reads files by import.meta.url but was bundled into ${output}, outside ${chunkDir}`);
    }
  }

// 6. The Claude Code parse worker's entry, one file beside tsc's (`PARSE_WORKER_BUNDLE`, found by
// `defaultParseWorkerScript`): a worker thread loads its own module graph, and the ~40 unbundled
// modules it imported took ~0.2 s to load before it built its first session. Its `import()`s are
// bundled in (one file: no chunks to find). Built before the fingerprint, which hashes it.
const workerDir = join(root, 'dist', 'ingest', 'claude-code');
await build({
  ...common,
  entryPoints: [join(root, 'src', 'ingest', 'claude-code', 'parse-worker.ts')],
  outfile: join(workerDir, PARSE_WORKER_BUNDLE),
  banner,
  plugins: [moduleUrls(workerDir)],
});
// The same for `simulate`'s replay worker (`REPLAY_WORKER_BUNDLE`, found by `defaultReplayWorkerScript`).
const replayWorkerDir = join(root, 'dist', 'usecases');
await build({
  ...common,
  entryPoints: [join(root, 'src', 'usecases', 'simulate-worker.ts')],
  outfile: join(replayWorkerDir, REPLAY_WORKER_BUNDLE),
  banner,
  plugins: [zodEnglishOnlyPlugin, moduleUrls(replayWorkerDir)],
});

// The parse cache's code fingerprint, hashed once here rather than on every run: a manifest beside
// the entry that a run checks by file sizes (`FINGERPRINT_MANIFEST` in src/ingest/parse-cache.ts).
// Written last, when every file it describes is in place.
const parseCache = await import(pathToFileURL(join(root, 'dist', 'ingest', 'parse-cache.js')).href);
await writeFile(
  join(outdir, parseCache.FINGERPRINT_MANIFEST),
  JSON.stringify(parseCache.fingerprintManifest(join(outdir, 'main.js'))),
);
