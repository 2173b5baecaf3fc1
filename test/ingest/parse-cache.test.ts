/**
 * The parsed-line cache: whatever the cache holds (nothing, a current entry, an entry of a shorter
 * file, a corrupt or foreign entry), a session read through it equals the session read without it.
 * Every test uses its own temp cache directory (never the user's home).
 */
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { loadClaudeSession } from '../../src/ingest/claude-code/index.js';
import {
  type CacheOutcome,
  hasCacheEntry,
  type LineParser,
  openParseCache,
  type ParseCache,
  RECENT_MS,
  readLinesCached,
} from '../../src/ingest/parse-cache.js';
import { cli } from '../cli/run.js';
import { agedCopy } from '../support/aged-copy.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-parse-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string): string => {
  counter += 1;
  const dir = join(root, `${name}-${counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

// An hour ago: entries written now are not "racy" (the file did not change just before they were written).
const OLD = new Date(Date.now() - 3_600_000);
const LATER_MS = Date.now() + 10_000;
// Older than `RECENT_MS` before the runs: a file read for the first time is not stored line by line.
const LONG_AGO = new Date(LATER_MS - RECENT_MS - 3_600_000);

async function cacheAt(dir: string, nowMs = LATER_MS): Promise<ParseCache> {
  const cache = await openParseCache(dir, { mustExist: null, nowMs });
  if (cache === null) throw new Error('cache did not open');
  return cache;
}

function assistant(n: number, output: number, id = `msg_${n % 7}`): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `a${n}`,
    parentUuid: null,
    sessionId: 'S',
    isSidechain: false,
    cwd: '/home/me/app',
    timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    requestId: `req_${n % 5}`,
    message: {
      id,
      model: 'claude-sonnet-4-6',
      content: [
        { type: 'text', text: `é${'x'.repeat(n % 9)}` },
        { type: 'tool_use', id: `t${n}`, name: 'Read', input: { path: `/f${n}` } },
      ],
      usage: {
        input_tokens: n,
        cache_read_input_tokens: 2 * n,
        cache_creation_input_tokens: 3,
        output_tokens: output,
        cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 0 },
      },
    },
  });
}

function user(n: number): string {
  return JSON.stringify({
    type: 'user',
    uuid: `u${n}`,
    parentUuid: null,
    sessionId: 'S',
    cwd: '/home/me/app',
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'ok ✓' }] },
  });
}

const LINE_KINDS = ['assistant', 'user', 'blank', 'bad', 'progress', 'crlf'] as const;
function lineText(kind: (typeof LINE_KINDS)[number], n: number): string {
  switch (kind) {
    case 'assistant':
      return assistant(n, n * 3);
    case 'user':
      return user(n);
    case 'blank':
      return '';
    case 'bad':
      return `{"type":"assistant","message":{"usage":{"input_tokens":${n}`;
    case 'progress':
      return JSON.stringify({ type: 'progress', uuid: `p${n}`, data: { type: 'hook_progress' } });
    case 'crlf':
      return `${assistant(n, 1)}\r`;
  }
}

async function session(file: string, cache: ParseCache | null): Promise<string> {
  const loaded = await loadClaudeSession(
    { sessionId: 'S', mainFiles: [file], agentFiles: [], parentSessionId: null, projectDir: '-home-me-app' },
    { content: 'sizes', cache },
  );
  return JSON.stringify(loaded);
}

/** Reads `file` through `cache` with a parser that keeps every line; returns the outcome. */
const LINE_PARSER: LineParser<[number, string]> = { key: 'test/lines/1', parse: (line) => [line.number, line.text] };

async function outcomeOf(file: string, cache: ParseCache): Promise<CacheOutcome> {
  return readLinesCached(file, LINE_PARSER, cache, []);
}

describe('parsed-line cache', () => {
  // Checked against deliberate bugs: resuming a grown file at the old `size` instead of the offset
  // after the last complete line (a line cut mid-append is then parsed as two broken halves), and
  // storing the unterminated tail's entry (it is then counted twice once completed); both fail here.
  it('a session read through the cache equals one read without it, however the file grows (appends may cut lines)', async () => {
    const kinds = fc.array(fc.constantFrom(...LINE_KINDS), { minLength: 1, maxLength: 25 });
    await fc.assert(
      fc.asyncProperty(
        kinds,
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        async (lineKinds, cuts, bom, old) => {
          // Old or recent: stored line by line from its first read, or once it grows.
          const base = old ? LONG_AGO : OLD;
          const dir = fresh('grow');
          const cache = await cacheAt(join(dir, 'cache'));
          const file = join(dir, 'S.jsonl');
          const text = `${bom ? '\uFEFF' : ''}${lineKinds.map((kind, n) => lineText(kind, n + 1)).join('\n')}\n`;
          const bytes = Buffer.from(text);
          // Grow the file in steps, cutting anywhere (inside a line, inside a multi-byte character).
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          let written = 0;
          writeFileSync(file, '');
          for (const point of [...points, bytes.length]) {
            appendFileSync(file, bytes.subarray(written, point));
            written = point;
            utimesSync(file, base, new Date(base.getTime() + written));
            const withCache = await session(file, cache);
            expect(withCache).toBe(await session(file, null));
            // A second read of the unchanged file is a hit and still equal.
            expect(await session(file, cache)).toBe(withCache);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('serves an unchanged file from the cache, parses only appended bytes, and re-reads a file that shrank or was replaced', async () => {
    const dir = fresh('outcomes');
    const cache = await cacheAt(join(dir, 'cache'));
    const file = join(dir, 'S.jsonl');
    writeFileSync(file, `${assistant(1, 5)}\n${assistant(2, 6)}\n`);
    utimesSync(file, OLD, OLD);
    expect(await outcomeOf(file, cache)).toBe('miss');
    expect(await outcomeOf(file, cache)).toBe('hit');
    appendFileSync(file, `${assistant(3, 7)}\n`);
    utimesSync(file, OLD, new Date(OLD.getTime() + 1000));
    expect(await outcomeOf(file, cache)).toBe('grown');
    // The entries written after a growth (the loaded batches copied, the new line's batch after
    // them) serve the next growth and the next unchanged read, with every line's entry.
    appendFileSync(file, `${assistant(4, 8)}\n`);
    utimesSync(file, OLD, new Date(OLD.getTime() + 1500));
    expect(await outcomeOf(file, cache)).toBe('grown');
    const lines: [number, string][] = [];
    expect(await readLinesCached(file, LINE_PARSER, cache, lines)).toBe('hit');
    expect(lines.map(([number]) => number)).toEqual([1, 2, 3, 4]);
    // Rewritten in place with different content and a larger size: the bytes before the cached offset changed.
    writeFileSync(file, `${assistant(9, 99)}\n${assistant(8, 98)}\n${assistant(7, 97)}\n${assistant(6, 96)}\n`);
    utimesSync(file, OLD, new Date(OLD.getTime() + 2000));
    expect(await outcomeOf(file, cache)).toBe('stale');
    writeFileSync(file, `${assistant(1, 5)}\n`);
    utimesSync(file, OLD, new Date(OLD.getTime() + 3000));
    expect(await outcomeOf(file, cache)).toBe('stale');
    // Same size and mtime but rewritten right before the run that wrote the entry ("racy"): never
    // trusted. The window is 100 ms for an mtime finer than a second, 2 s for a whole-second one.
    const fine = Math.floor(OLD.getTime() / 1000) * 1000 + 3_437;
    utimesSync(file, OLD, new Date(fine));
    const racy = await cacheAt(join(dir, 'racy'), fine + 60);
    expect(await outcomeOf(file, racy)).toBe('miss');
    expect(await outcomeOf(file, racy)).toBe('stale');
    const settled = await cacheAt(join(dir, 'settled'), fine + 150);
    expect(await outcomeOf(file, settled)).toBe('miss');
    expect(await outcomeOf(file, settled)).toBe('hit');
    const whole = fine - 437;
    utimesSync(file, OLD, new Date(whole));
    const coarse = await cacheAt(join(dir, 'coarse'), whole + 1_500);
    expect(await outcomeOf(file, coarse)).toBe('miss');
    expect(await outcomeOf(file, coarse)).toBe('stale');
  });

  // Checked against a deliberate bug: an old file's first read stored (the first two checks fail),
  // and an old file with an entry left as it was (the last check fails).
  it('stores an old file read for the first time only once it is written to again, then keeps its entry up to date', async () => {
    const dir = fresh('old');
    const cache = await cacheAt(join(dir, 'cache'));
    const file = join(dir, 'S.jsonl');
    writeFileSync(file, `${assistant(1, 5)}\n${assistant(2, 6)}\n`);
    utimesSync(file, LONG_AGO, LONG_AGO);
    const lines: [number, string][] = [];
    expect(await readLinesCached(file, LINE_PARSER, cache, lines)).toBe('miss');
    expect(lines.map(([number]) => number)).toEqual([1, 2]);
    expect(hasCacheEntry(cache, LINE_PARSER.key, file)).toBe(false);
    expect(await outcomeOf(file, cache)).toBe('miss');
    // Written to within the last day: read whole once and stored; then only appended bytes are parsed.
    appendFileSync(file, `${assistant(3, 7)}\n`);
    utimesSync(file, OLD, OLD);
    expect(await outcomeOf(file, cache)).toBe('miss');
    expect(hasCacheEntry(cache, LINE_PARSER.key, file)).toBe(true);
    appendFileSync(file, `${assistant(4, 8)}\n`);
    utimesSync(file, OLD, new Date(OLD.getTime() + 1000));
    expect(await outcomeOf(file, cache)).toBe('grown');
    // An old file that has an entry keeps it up to date: rewritten, it is stored again.
    writeFileSync(file, `${assistant(9, 99)}\n`);
    utimesSync(file, LONG_AGO, LONG_AGO);
    expect(await outcomeOf(file, cache)).toBe('stale');
    expect(await outcomeOf(file, cache)).toBe('hit');
  });

  it('rebuilds an entry that is corrupt, truncated or written by another cachecost, and the session stays the same', async () => {
    const dir = fresh('corrupt');
    const cacheDir = join(dir, 'cache');
    const file = join(dir, 'S.jsonl');
    writeFileSync(file, `${[1, 2, 3, 4].map((n) => assistant(n, n)).join('\n')}\n`);
    utimesSync(file, OLD, OLD);
    const expected = await session(file, null);
    const cache = await cacheAt(cacheDir);
    expect(await session(file, cache)).toBe(expected);
    const entryDir = join(cacheDir, 'parsed-v1');
    const entry = join(entryDir, readdirSync(entryDir).find((name) => name.endsWith('.entries')) ?? '');
    const good = readFileSync(entry);
    const headerBytes = good.readUInt32LE(good.length - 4);
    const header = good.subarray(good.length - 4 - headerBytes, good.length - 4).toString('utf8');
    const withHeader = (json: string): Buffer => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(Buffer.byteLength(json));
      return Buffer.concat([good.subarray(0, good.length - 4 - headerBytes), Buffer.from(json), length]);
    };
    const flipped = Buffer.from(good);
    // A byte of the first batch's numbers (a count, a length or a flag of an entry).
    flipped[4 + 16 + 8 * 3] = (flipped[4 + 16 + 8 * 3] ?? 0) ^ 0x01;
    const damages: Record<string, Buffer> = {
      'a flipped byte in the entries': flipped,
      'a truncated entry': good.subarray(0, Math.floor(good.length / 2)),
      'a truncated header': good.subarray(0, good.length - 2),
      'another build': withHeader(header.replace(/"fingerprint":"[0-9a-f]+"/, '"fingerprint":"0000"')),
      'another check': withHeader(header.replace(/"algorithm":"[a-z0-9]+"/, '"algorithm":"md5"')),
      'not an entry': Buffer.from('garbage\n'),
      empty: Buffer.alloc(0),
    };
    for (const [what, bytes] of Object.entries(damages)) {
      writeFileSync(entry, bytes);
      expect(await session(file, cache), what).toBe(expected);
      expect(readFileSync(entry).equals(good), `${what} is rewritten`).toBe(true);
    }
  });

  it('CLI: report and sessions print the same bytes with a cold cache, a warm cache and --no-cache', async () => {
    const env = { CACHECOST_CACHE_DIR: join(fresh('cli'), 'cache') };
    for (const argv of [
      ['report', 'test/fixtures/claude-code', '--by', 'session', '--json'],
      ['sessions', 'test/fixtures/claude-code', '--json'],
      ['report', '../shared/real-logs', '--by', 'day', '--json'],
      ['sessions', '../shared/real-logs', '--json'],
    ]) {
      const uncached = await cli([...argv, '--no-cache'], env);
      const cold = await cli(argv, env);
      const warm = await cli(argv, env);
      expect(cold).toEqual(uncached);
      expect(warm).toEqual(uncached);
    }
  });

  it('CLI: logs a month old are kept in the run pack alone; a transcript that grows is stored from then on', async () => {
    const dir = fresh('cli-old');
    const logs = agedCopy('test/fixtures/claude-code', join(dir, 'logs'), new Date(Date.now() - 30 * 86_400_000));
    const env = { CACHECOST_CACHE_DIR: join(dir, 'cache') };
    const argv = ['report', logs, '--by', 'session', '--json'];
    const stored = (suffix: string): string[] =>
      readdirSync(join(dir, 'cache', 'parsed-v1')).filter((name) => name.endsWith(suffix));
    const first = await cli(argv, env);
    expect(first).toEqual(await cli([...argv, '--no-cache'], env));
    expect(stored('.pack')).toHaveLength(1);
    expect(stored('.entries')).toEqual([]);
    expect(await cli(argv, env)).toEqual(first);
    // One transcript written to now (a copy of its last line: the same response, counted once).
    const transcript = join(logs, 'projects', '-home-me-app', 'S1.jsonl');
    const last = readFileSync(transcript, 'utf8').trimEnd().split('\n').at(-1) ?? '';
    appendFileSync(transcript, `${last}\n`);
    utimesSync(transcript, OLD, OLD);
    const grown = await cli(argv, env);
    expect(grown).toEqual(await cli([...argv, '--no-cache'], env));
    expect(stored('.entries')).toHaveLength(1);
    expect(await cli(argv, env)).toEqual(grown);
  });
});

/**
 * The kill test runs the cache in a child process (plain Node, so the TypeScript modules are
 * transpiled first) over a file large enough that writing its entry takes a while, SIGKILLs the
 * child while the entry's temp file is being written, then reads again: the result must equal an
 * uncached read, and no half-written entry may be trusted.
 */
describe('parsed-line cache, killed mid-write', () => {
  function transpile(out: string): void {
    mkdirSync(join(out, 'ingest'), { recursive: true });
    // `../../package.json` from ingest/ is the package file the fingerprint hashes.
    writeFileSync(join(out, '..', 'package.json'), readFileSync('package.json'));
    mkdirSync(join(out, 'session'), { recursive: true });
    // The cache's modules and what they import.
    for (const name of ['ingest/parse-cache', 'ingest/lines', 'ingest/byte-check', 'session/packed-array']) {
      const source = readFileSync(`src/${name}.ts`, 'utf8');
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      writeFileSync(join(out, `${name}.js`), js);
    }
  }

  const child = (lib: string, cacheDir: string, file: string, useCache: boolean): string => `
    import { openParseCache, readLinesCached } from ${JSON.stringify(join(lib, 'ingest', 'parse-cache.js'))};
    const cache = ${useCache ? `await openParseCache(${JSON.stringify(cacheDir)}, { mustExist: null, nowMs: ${LATER_MS} })` : 'null'};
    const parser = { key: 'kill/1', parse: (line) => { const v = JSON.parse(line.text); return [line.number, v.n, v.pad.length]; } };
    const entries = [];
    const outcome = await readLinesCached(${JSON.stringify(file)}, parser, cache, entries);
    let sum = 0; for (const [, n, pad] of entries) sum += n * 7 + pad;
    process.stdout.write(JSON.stringify({ outcome, count: entries.length, sum }));
  `;

  function runChild(
    script: string,
    onTemp?: () => void,
    cacheDir?: string,
  ): Promise<{ code: number | null; signal: string | null; stdout: string }> {
    return new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      let timer: NodeJS.Timeout | undefined;
      if (onTemp !== undefined && cacheDir !== undefined) {
        timer = setInterval(() => {
          let names: string[];
          try {
            names = readdirSync(join(cacheDir, 'parsed-v1'));
          } catch {
            return;
          }
          if (names.some((name) => name.endsWith('.tmp'))) {
            clearInterval(timer);
            proc.kill('SIGKILL');
            onTemp();
          }
        }, 1);
      }
      proc.on('error', reject);
      proc.on('close', (code, signal) => {
        if (timer !== undefined) clearInterval(timer);
        resolve({ code, signal, stdout });
      });
    });
  }

  // The build's fingerprint manifest (scripts/bundle-cli.mjs) stands for the code only while it
  // describes it: same package file, same code files, same sizes; otherwise the code is hashed.
  it('uses the build fingerprint manifest only while the code files are the ones it lists', async () => {
    const dir = fresh('manifest');
    const lib = join(dir, 'lib', 'a');
    transpile(lib);
    mkdirSync(join(lib, 'cli', 'chunks'), { recursive: true });
    const main = join(lib, 'cli', 'main.js');
    writeFileSync(main, 'export {};\n');
    writeFileSync(join(lib, 'cli', 'chunks', 'parse.js'), 'export const parse = 1;\n');
    const module = JSON.stringify(join(lib, 'ingest', 'parse-cache.js'));
    const fingerprints = async (): Promise<{ used: string; hashed: string }> =>
      JSON.parse(
        (
          await runChild(`
            import { codeFingerprint, fingerprintManifest } from ${module};
            const used = codeFingerprint(${JSON.stringify(main)});
            process.stdout.write(JSON.stringify({ used, hashed: fingerprintManifest(${JSON.stringify(main)}).fingerprint }));
          `)
        ).stdout,
      ) as { used: string; hashed: string };
    const none = await fingerprints();
    expect(none.used).toBe(none.hashed);
    // A manifest with a marker instead of the hash: the marker is what a run uses while it holds.
    await runChild(`
      import { writeFileSync } from 'node:fs';
      import { FINGERPRINT_MANIFEST, fingerprintManifest } from ${module};
      const manifest = { ...fingerprintManifest(${JSON.stringify(main)}), fingerprint: 'as-built' };
      writeFileSync(${JSON.stringify(join(lib, 'cli'))} + '/' + FINGERPRINT_MANIFEST, JSON.stringify(manifest));
    `);
    expect((await fingerprints()).used).toBe('as-built');
    // A code file that changed size, a new code file, another package file: hashed again.
    appendFileSync(join(lib, 'cli', 'chunks', 'parse.js'), '// edited\n');
    const edited = await fingerprints();
    expect(edited.used).toBe(edited.hashed);
    expect(edited.hashed).not.toBe(none.hashed);
    writeFileSync(join(lib, 'cli', 'chunks', 'parse.js'), 'export const parse = 1;\n');
    expect((await fingerprints()).used).toBe('as-built');
    writeFileSync(join(lib, 'cli', 'chunks', 'more.js'), 'export {};\n');
    expect((await fingerprints()).used).not.toBe('as-built');
    rmSync(join(lib, 'cli', 'chunks', 'more.js'));
    expect((await fingerprints()).used).toBe('as-built');
    writeFileSync(join(lib, '..', 'package.json'), '{"name":"cachecost","version":"0.0.0-other"}');
    expect((await fingerprints()).used).not.toBe('as-built');
  }, 60_000);

  it('a run killed while writing its entry leaves nothing that is trusted; the next run equals an uncached read', async () => {
    const dir = fresh('kill');
    const lib = join(dir, 'lib', 'a');
    transpile(lib);
    const cacheDir = join(dir, 'cache');
    const file = join(dir, 'big.jsonl');
    const lines: string[] = [];
    for (let n = 0; n < 200_000; n += 1) lines.push(JSON.stringify({ n, pad: 'p'.repeat(n % 50) }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    utimesSync(file, OLD, OLD);
    const uncached = await runChild(child(lib, cacheDir, file, false));
    expect(JSON.parse(uncached.stdout)).toMatchObject({ outcome: 'disabled', count: 200_000 });

    let killedWhileWriting = false;
    const killed = await runChild(
      child(lib, cacheDir, file, true),
      () => {
        killedWhileWriting = true;
      },
      cacheDir,
    );
    expect(killedWhileWriting).toBe(true);
    expect(killed.signal).toBe('SIGKILL');
    const names = readdirSync(join(cacheDir, 'parsed-v1'));
    expect(names.filter((name) => name.endsWith('.entries'))).toEqual([]);

    const rerun = JSON.parse((await runChild(child(lib, cacheDir, file, true))).stdout) as {
      outcome: string;
      count: number;
      sum: number;
    };
    const expected = JSON.parse(uncached.stdout) as { count: number; sum: number };
    expect(rerun).toEqual({ outcome: 'miss', count: expected.count, sum: expected.sum });
    const again = JSON.parse((await runChild(child(lib, cacheDir, file, true))).stdout) as {
      outcome: string;
      count: number;
      sum: number;
    };
    expect(again).toEqual({ outcome: 'hit', count: expected.count, sum: expected.sum });
  }, 120_000);
});
