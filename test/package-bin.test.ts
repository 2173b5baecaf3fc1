// `npm install && npx cachecost …` in a fresh checkout runs the built `bin` file itself: it must be
// executable and start with a node shebang. `prepare` builds dist/ on install, so CI always has it.
// The bin is an esbuild bundle (scripts/bundle-cli.mjs) while every other test runs the CLI from
// src/: the bundle is checked here against the in-process CLI, on the paths where bundling could
// change behaviour (files found by module-relative paths, yargs' locales, external packages).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './cli/run.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; bin: Record<string, string> };
const bin = pkg.bin['cachecost'] ?? '';
const REAL_LOGS = join('..', 'shared', 'real-logs', 'claude-code');
const built = existsSync(bin);

/** The newest modification time of a file under `dir`. */
function newestMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
// A build older than the sources it was built from cannot be compared with them (locally, after an
// edit without `npm run build`); CI builds on install, so there it is always compared.
const fresh = built && (process.env['CI'] === 'true' || statSync(bin).mtimeMs >= newestMs('src'));

const run = promisify(execFile);
// yargs reads the language from the process's own environment: the bin gets the same.
const LOCALE = Object.fromEntries(
  ['LC_ALL', 'LC_MESSAGES', 'LANG', 'LANGUAGE'].flatMap((name) => {
    const value = process.env[name];
    return value === undefined ? [] : [[name, value]];
  }),
);
async function runBin(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...argv], {
      env: { PATH: process.env['PATH'] ?? '', ...LOCALE, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the package bin', () => {
  it('exists after npm ci (checked when CI=true; prepare builds it)', () => {
    if (process.env['CI'] === 'true') expect(built, `${bin} missing after npm ci`).toBe(true);
  });

  it.runIf(built)('is executable and starts with a node shebang', () => {
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it.runIf(built)('prints the package version', async () => {
    expect(await runBin(['--version'], {})).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe.runIf(fresh)('the bundled bin against the CLI from src/', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cachecost-bin-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const env = { HOME: join(scratch, 'home'), CACHECOST_CACHE_DIR: join(scratch, 'cache'), NO_COLOR: '1' };

  const same = async (argv: readonly string[], extraEnv: Record<string, string> = {}): Promise<void> => {
    const [fromBin, fromSrc] = [await runBin(argv, { ...env, ...extraEnv }), await cli(argv, { ...env, ...extraEnv })];
    expect(fromBin).toEqual(fromSrc);
  };

  it('gives the same help and usage errors', async () => {
    await same(['--help']);
    await same(['report', '--help']);
    await same(['report', '--no-such-option']);
  });

  // yargs finds its translations beside its own package, not beside the bundle.
  it("finds yargs' translations", async () => {
    const german = await runBin(['report', '--help'], { ...env, LC_ALL: 'de_DE.UTF-8' });
    expect(german.stdout).toContain('Optionen:');
  });

  // The bundled price table, the parse cache (fingerprint of the ingest sources) and the bill.
  it('gives the same bill, with and without the parse cache', { timeout: 60_000 }, async () => {
    await same(['report', '--by', 'session', '--json', '--no-cache', 'test/fixtures/claude-code']);
    await same(['report', '--by', 'session', '--json', 'test/fixtures/claude-code']);
    await same(['report', '--by', 'session', '--json', 'test/fixtures/claude-code']);
  });

  // The core runs through a V8 code cache (src/cli/core-loader.ts) written by a first run: the
  // same output from source, from the cache, and from a damaged cache (rewritten by that run).
  it('gives the same output with the core from its code cache, intact or damaged', { timeout: 60_000 }, async () => {
    const codeEnv = { CACHECOST_CACHE_DIR: join(scratch, 'code-cache') };
    const codeCache = join(scratch, 'code-cache', 'code-v1', 'core.v8');
    const argv = ['report', '--by', 'session', '--json', 'test/fixtures/claude-code'];
    await same(argv, codeEnv);
    const written = readFileSync(codeCache);
    expect(written.length).toBeGreaterThan(100_000);
    await same(argv, codeEnv);
    // A run from an intact cache leaves it as it was.
    expect(readFileSync(codeCache).equals(written)).toBe(true);
    const damaged = Buffer.from(written);
    const at = damaged.length - 1_000;
    damaged[at] = (damaged[at] ?? 0) ^ 0x20;
    writeFileSync(codeCache, damaged);
    await same(argv, codeEnv);
    expect(readFileSync(codeCache).equals(damaged)).toBe(false);
    await same(['sessions', '--json', 'test/fixtures/claude-code'], codeEnv);
    // --no-cache neither reads nor writes it.
    rmSync(codeCache);
    await same([...argv, '--no-cache'], codeEnv);
    expect(existsSync(codeCache)).toBe(false);
  });

  // Parse workers: the bundle's chunk finds the bundled worker entry beside its tsc output (`dist/ingest/`); the
  // CLI from src/ has no compiled worker and parses in one thread, so this is also the
  // differential test of the built workers against one thread. A preload records each worker
  // the bin starts (the worker_threads export patched before the CLI imports it).
  it('parses on worker threads when asked, with the same output as one thread', { timeout: 120_000 }, async () => {
    const log = join(scratch, 'workers.log');
    const preload = join(scratch, 'log-workers.mjs');
    writeFileSync(
      preload,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { syncBuiltinESMExports } from 'node:module';",
        "import threads from 'node:worker_threads';",
        'const Worker = threads.Worker;',
        'threads.Worker = class extends Worker {',
        '  constructor(url, options) {',
        '    super(url, options);',
        `    appendFileSync(${JSON.stringify(log)}, String(url) + '\\n');`,
        '  }',
        '};',
        'syncBuiltinESMExports();',
      ].join('\n'),
    );
    const runs = [
      ['report', '--by', 'session', '--json', '--no-cache', REAL_LOGS, 'test/fixtures/claude-code'],
      ['sessions', '--json', '--no-cache', REAL_LOGS],
      // A cold cache: the entries the workers parse are written by them.
      ['report', '--by', 'day', '--json', REAL_LOGS],
      ['report', '--by', 'day', '--json', REAL_LOGS],
    ];
    for (const argv of runs) {
      writeFileSync(log, '');
      const threads = { CACHECOST_THREADS: '3' };
      const fromBin = await runBin(argv, {
        ...env,
        ...threads,
        NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
      });
      // The CLI from src/ is another build (another code fingerprint): with a cache of its own, it
      // leaves the bin's run pack in place for the bin's re-run.
      expect(fromBin).toEqual(await cli(argv, { ...env, ...threads, CACHECOST_CACHE_DIR: join(scratch, 'cache-src') }));
      const started = readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      // The last run is served by the run pack: nothing to parse, no worker.
      if (argv === runs[3]) expect(started).toEqual([]);
      else
        expect(started).toEqual([
          expect.stringMatching(/\/dist\/ingest\/claude-code\/parse-worker\.bundle\.js$/),
          expect.anything(),
        ]);
    }
  });

  // DuckDB (an external package) and the SQL files read beside `dist/cost/db.js`.
  it('records, exports and reads back the same run through DuckDB', { timeout: 120_000 }, async () => {
    const stamp = ['--run-id', 'r1', '--started-at', '2026-01-01T00:00:00Z', '--host', 'h'];
    const fixture = 'test/fixtures/claude-code';
    await same(['report', '--no-cache', '--db', join(scratch, 'bill.duckdb'), ...stamp, fixture]);
    const out = join(scratch, 'fleet');
    await same(['export', '--out', out, ...stamp, fixture]);
    await same(['report', '--by', 'host', '--json', '--from', out]);
  });

  // zod (a ~390 KB chunk, ~40 ms to load) is for FreeCode logs, pricing files, threshold options
  // and fleet exports, each imported when met: the chunks \`simulate\` imports statically must not
  // hold it, or a replay of Claude Code or Codex logs pays for it (the engine's, the scenarios' and
  // the thresholds' schemas are modules of their own for that reason).
  it("simulate's module graph holds no zod until a log or an option needs it", () => {
    const chunks = join('dist', 'cli', 'chunks');
    const entry = /__coreImport\("\.\/(simulate-[\w-]+\.js)"\)/.exec(
      readFileSync(join(chunks, 'core-body.cjs'), 'utf8'),
    );
    expect(entry).not.toBeNull();
    const seen = new Set<string>();
    const pending = [entry?.[1] ?? ''];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      // Static imports and re-exports only: a dynamic import() is loaded when a run needs it.
      for (const match of readFileSync(join(chunks, file), 'utf8').matchAll(
        /^(?:import|export)\b[^;]*?["']\.\/([\w-]+\.js)["']/gms,
      ))
        pending.push(match[1] ?? '');
    }
    expect(seen.size).toBeGreaterThan(5);
    const withZod = [...seen].filter((file) =>
      readFileSync(join(chunks, file), 'utf8').includes('// node_modules/zod/'),
    );
    expect(withZod).toEqual([]);
  });
});
