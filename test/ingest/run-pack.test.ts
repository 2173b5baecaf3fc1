/**
 * The run pack (`src/ingest/run-pack.ts`): a re-run is served from it while the logs are as they
 * were, and a pack that is damaged, from another build, half-written by a killed run, or for
 * other logs is never trusted: the run then reads the logs and equals a run without cache.
 *
 * To show that the pack is really what serves a re-run, one log is rewritten in place with the
 * same size and mtime (the one change the trust rules cannot see, by design): a trusted pack
 * still gives the old numbers, so any test where the new numbers come out proves the pack was
 * refused (the parsed-line entries, which would serve the same stale lines, are removed first).
 * Checked against deliberate bugs: the CRC-32 comparison dropped from `load` (a flipped byte in a
 * blob was served: the damage test failed); each blob's check dropped from `lookup` in turn
 * (requests, claims, items: the damage test failed for that blob). Appends (a re-run after a
 * transcript grew writes one segment at the end): the new segment's eager region left out of the
 * appended index (its session was rebuilt each run: the served-from-the-segment case failed); a
 * reader that finds the last trailer by its tag instead of at the file's end (it served the pack
 * as it was before a killed append: the kill-mid-append case failed). Each segment's eager region
 * has a check of its own, taken once on load; a blob in a region that passes it is not checked
 * again: the region check taken as passed always (a flipped byte in a blob was served: the damage
 * test failed), and a failed region refusing all its blobs (the damaged-region case failed). The
 * regions are read on the thread pool from the moment the pack is opened: a pack closed meanwhile
 * closing its file at once, and never closing it, each failed the closed-while-reading case.
 */
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openParseCache, openRunPack, type ParseCache } from '../../src/ingest/index.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { startCli } from '../robust/spawn-cli.js';
import { agedCopy } from '../support/aged-copy.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-run-pack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

const OLD = new Date(Date.now() - 3_600_000);
const MAIN = join('projects', '-home-me-app', 'S1.jsonl');
/** The other session's one transcript, which the append cases grow. */
const OTHER = join('projects', '-home-me-app', 'L1.jsonl');

/**
 * Appends a response with `output` output tokens to the other session's transcript (fresh ids per
 * `n`), dated an hour ago plus `n` seconds: a file that grew, not racy, whose mtime moved.
 */
function grow(dir: string, n: number, output = 7): void {
  const file = join(dir, OTHER);
  appendFileSync(
    file,
    `${JSON.stringify({
      type: 'assistant',
      uuid: `grown-${n}`,
      parentUuid: null,
      isSidechain: false,
      sessionId: 'L1',
      timestamp: '2026-01-02T00:00:00.000Z',
      requestId: `req_grown_${n}`,
      message: {
        id: `msg_grown_${n}`,
        model: 'claude-opus-4-1',
        content: [{ type: 'text', text: 'grown' }],
        usage: { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: output },
      },
    })}\n`,
  );
  const when = new Date(OLD.getTime() + n * 1_000);
  utimesSync(file, when, when);
}

/** Rewrites the last grown response's output (one digit) in place, same size and mtime: invisible to stat. */
function rewriteGrownInvisibly(dir: string, from: number, to: number): void {
  const file = join(dir, OTHER);
  const { mtime } = statSync(file);
  const text = readFileSync(file, 'utf8');
  const at = text.lastIndexOf(`"output_tokens":${from}}`);
  expect(at).toBeGreaterThan(0);
  writeFileSync(
    file,
    `${text.slice(0, at)}"output_tokens":${to}}${text.slice(at + `"output_tokens":${from}}`.length)}`,
  );
  utimesSync(file, mtime, mtime);
}

/** A copy of the Claude Code fixture whose files are an hour old (not racy). */
function logs(): string {
  counter += 1;
  return agedCopy('test/fixtures/claude-code', join(root, `logs-${counter}`), OLD);
}

async function read(dir: string, cache: ParseCache | null): Promise<string> {
  const sessions: string[] = [];
  const issues = await forEachSession([dir], { content: 'usage', cache }, (session) => {
    sessions.push(JSON.stringify(session));
  });
  return JSON.stringify({ sessions, issues });
}

/** What the bill reads of a run that does not read items: every session but its items. */
async function readBill(dir: string, cache: ParseCache | null): Promise<string> {
  const sessions: string[] = [];
  const issues = await forEachSession([dir], { content: 'usage', cache, readsItems: false }, (session) => {
    // Key by key: a spread would read `items`.
    const { id, requests, events, issues: sessionIssues, totalsOnly } = session;
    sessions.push(JSON.stringify({ id, requests, events, issues: sessionIssues, totalsOnly }));
  });
  return JSON.stringify({ sessions, issues });
}

type Blob = [offset: number, bytes: number, check: number | string];
type PackLayout = {
  /** File offset of the last segment's index. */
  indexStart: number;
  sessions: { files: unknown[]; claims: Blob; requests?: Blob; items?: Blob; whole?: Blob }[];
};

/** Bytes of the trailer that ends a pack (`run-pack.ts`). */
const TRAILER_BYTES = 256;

/** Where the pack's index is (its trailer, the file's last bytes, says) and its sessions' blobs (what the damage cases aim at). */
function layout(pack: Buffer): PackLayout {
  const trailer = JSON.parse(pack.toString('utf8', pack.length - TRAILER_BYTES)) as {
    start: number;
    eagerBytes: number;
    lazyBytes: number;
    indexBytes: number;
  };
  const indexStart = trailer.start + trailer.eagerBytes + trailer.lazyBytes;
  const index = JSON.parse(pack.toString('utf8', indexStart, indexStart + trailer.indexBytes)) as {
    sessions: PackLayout['sessions'];
  };
  return { indexStart, sessions: index.sessions };
}

/** The file offset of the middle byte of the main session's blob `which` (blobs are named by file offset). */
function blobByte(pack: Buffer, which: 'claims' | 'requests' | 'items'): number {
  const main = layout(pack).sessions.find((session) => session.files.length === 3);
  const blob = main?.[which];
  if (blob === undefined) throw new Error(`no ${which} blob for the main session`);
  return blob[0] + Math.floor(blob[1] / 2);
}

function flip(pack: Buffer, at: number): Buffer {
  const copy = Buffer.from(pack);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}

/** Rewrites the main transcript in place with other numbers, same size, same mtime: invisible to stat. */
function rewriteInvisibly(dir: string): void {
  const file = join(dir, MAIN);
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(
    '"cache_read_input_tokens":20500,"output_tokens":30',
    '"cache_read_input_tokens":20500,"output_tokens":31',
  );
  expect(changed).not.toBe(text);
  writeFileSync(file, changed);
  utimesSync(file, OLD, OLD);
}

/** Removes the parsed-line entries, so that a session the pack does not serve is read from its log. */
function dropLineEntries(cacheDir: string): void {
  const dir = join(cacheDir, 'parsed-v1');
  for (const name of readdirSync(dir)) if (name.endsWith('.entries')) rmSync(join(dir, name));
}

function packOf(cacheDir: string): string {
  const dir = join(cacheDir, 'parsed-v1');
  const packs = readdirSync(dir).filter((name) => name.endsWith('.pack'));
  expect(packs).toHaveLength(1);
  return join(dir, packs[0] ?? '');
}

async function cacheAt(dir: string): Promise<ParseCache> {
  const cache = await openParseCache(dir, { mustExist: null, nowMs: Date.now() });
  if (cache === null) throw new Error('cache did not open');
  return cache;
}

/** How many of this process's open file descriptors name `path` (Linux: `/proc/self/fd`). */
function openFilesOf(path: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(join('/proc/self/fd', fd)) === path) count += 1;
    } catch {
      // Closed meanwhile (the directory's own descriptor, for one).
    }
  }
  return count;
}

describe('run pack', () => {
  it('serves a re-run over unchanged logs from the pack (a change stat cannot see is not seen)', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    const before = await read(dir, null);
    expect(await read(dir, cache)).toBe(before);
    dropLineEntries(cacheDir);
    rewriteInvisibly(dir);
    const after = await read(dir, null);
    expect(after).not.toBe(before);
    expect(await read(dir, cache), 'served from the pack').toBe(before);
  });

  it('never trusts a pack that is damaged, truncated, from another build or for other logs', async () => {
    const cases: Record<string, (pack: Buffer) => Buffer | string> = {
      "a flipped byte in the session's requests": (pack) => flip(pack, blobByte(pack, 'requests')),
      "a flipped byte in the session's claims": (pack) => flip(pack, blobByte(pack, 'claims')),
      "a flipped byte in the session's items": (pack) => flip(pack, blobByte(pack, 'items')),
      'a flipped byte in the index': (pack) => {
        const copy = Buffer.from(pack);
        const at = layout(pack).indexStart + 40;
        copy[at] = (copy[at] ?? 0) ^ 0x04;
        return copy;
      },
      'cut short': (pack) => pack.subarray(0, Math.floor(pack.length * 0.6)),
      'one byte more': (pack) => Buffer.concat([pack, Buffer.from(' ')]),
      'another build': (pack) => pack.toString('latin1').replace(/"fingerprint":"[0-9a-f]+"/, '"fingerprint":"0"'),
      'not a pack': () => 'garbage\n',
      empty: () => '',
    };
    for (const [what, damage] of Object.entries(cases)) {
      const dir = logs();
      const cacheDir = join(root, `cache-${counter}`);
      const cache = await cacheAt(cacheDir);
      await read(dir, cache);
      dropLineEntries(cacheDir);
      const path = packOf(cacheDir);
      const damaged = damage(readFileSync(path));
      writeFileSync(path, typeof damaged === 'string' ? Buffer.from(damaged, 'latin1') : damaged);
      rewriteInvisibly(dir);
      expect(await read(dir, cache), what).toBe(await read(dir, null));
    }
  });

  it('a damaged region still serves the sessions whose own blobs are intact; the damaged one is built', async () => {
    const dir = logs();
    grow(dir, 1, 7);
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    const byId = async (c: ParseCache | null): Promise<Map<string, string>> => {
      const sessions = new Map<string, string>();
      await forEachSession([dir], { content: 'usage', cache: c }, (session) => {
        sessions.set(session.id, JSON.stringify(session));
      });
      return sessions;
    };
    const before = await byId(cache);
    dropLineEntries(cacheDir);
    const path = packOf(cacheDir);
    // One flipped byte in the main session's requests: the region's check fails, that blob's too.
    writeFileSync(path, flip(readFileSync(path), blobByte(readFileSync(path), 'requests')));
    rewriteInvisibly(dir);
    rewriteGrownInvisibly(dir, 7, 8);
    const after = await byId(null);
    const served = await byId(cache);
    expect(served.get('S1'), 'the damaged session is built from its log').toBe(after.get('S1'));
    expect(after.get('L1')).not.toBe(before.get('L1'));
    expect(served.get('L1'), 'the intact one is served from the pack').toBe(before.get('L1'));
  });

  it('a run that reads no items leaves them unread; reading one anyway checks it and refuses it damaged', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    const before = await readBill(dir, null);
    expect(await readBill(dir, cache)).toBe(before);
    dropLineEntries(cacheDir);
    const path = packOf(cacheDir);
    writeFileSync(path, flip(readFileSync(path), blobByte(readFileSync(path), 'items')));
    rewriteInvisibly(dir);
    // Served from the pack (the old numbers), the damaged items never read.
    expect(await readBill(dir, cache)).toBe(before);
    // Read anyway: an error, never the damaged bytes.
    await expect(
      forEachSession([dir], { content: 'usage', cache, readsItems: false }, (session) => {
        void session.items.length;
      }),
    ).rejects.toThrow(/run pack .*damaged/);
  });

  it.runIf(process.platform === 'linux')(
    'a pack closed while its regions are still being read keeps its file until the read ends, then closes it',
    async () => {
      const dir = logs();
      const cacheDir = join(root, `cache-${counter}`);
      const cache = await cacheAt(cacheDir);
      const before = await read(dir, null);
      await read(dir, cache);
      const path = packOf(cacheDir);
      const pack = openRunPack(cache, 'usage', [dir]);
      expect(pack?.loaded).toBe(true);
      expect(openFilesOf(path)).toBe(1);
      // The regions' read started on the thread pool when the pack was opened; nothing awaited since.
      pack?.close();
      expect(openFilesOf(path), 'not closed under a running read').toBe(1);
      await pack?.ready();
      expect(openFilesOf(path), 'closed once the read ended').toBe(0);
      dropLineEntries(cacheDir);
      rewriteInvisibly(dir);
      expect(await read(dir, cache), 'the next run is served from the pack').toBe(before);
    },
  );

  it('a pack written for other logs is not read for these (the key names the paths)', async () => {
    const a = logs();
    const b = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    await read(a, cache);
    dropLineEntries(cacheDir);
    rewriteInvisibly(b);
    expect(await read(b, cache)).toBe(await read(b, null));
  });

  it('two spellings of one directory keep a pack each: a run over one does not undo the other', async () => {
    const absolute = logs();
    const relativePath = relative(process.cwd(), absolute);
    expect(relativePath).not.toBe(absolute);
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    const before = await read(absolute, cache);
    await read(relativePath, cache);
    dropLineEntries(cacheDir);
    rewriteInvisibly(absolute);
    expect(await read(absolute, null)).not.toBe(before);
    expect(await read(absolute, cache), 'served from its own pack').toBe(before);
  });

  it('a re-run after a transcript grew appends one segment, the other blobs left in place, and the next run is served from it', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    await read(dir, cache);
    const path = packOf(cacheDir);
    const first = readFileSync(path);
    const firstInode = statSync(path).ino;
    grow(dir, 1);
    const grown = await read(dir, null);
    expect(await read(dir, cache)).toBe(grown);
    const second = readFileSync(path);
    expect(statSync(path).ino, 'appended to, not replaced').toBe(firstInode);
    expect(second.length).toBeGreaterThan(first.length);
    expect(second.subarray(0, first.length).equals(first), 'the bytes already there are kept').toBe(true);
    // Served from the appended segment: a change stat cannot see is not seen.
    dropLineEntries(cacheDir);
    rewriteGrownInvisibly(dir, 7, 8);
    expect(await read(dir, null)).not.toBe(grown);
    expect(await read(dir, cache), 'served from the appended segment').toBe(grown);
  });

  it('appends until the dead bytes outweigh the live ones, then writes the pack whole; every run equals an uncached one', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    await read(dir, cache);
    const path = packOf(cacheDir);
    const inodes = new Set([statSync(path).ino]);
    let appended = 0;
    for (let n = 1; n <= 24; n += 1) {
      const before = statSync(path);
      grow(dir, n);
      expect(await read(dir, cache), `after growth ${n}`).toBe(await read(dir, null));
      const after = statSync(path);
      if (after.ino === before.ino && after.size > before.size) appended += 1;
      inodes.add(after.ino);
    }
    expect(appended, 'some runs appended').toBeGreaterThan(0);
    expect(inodes.size, 'some runs wrote it whole').toBeGreaterThan(1);
    expect(await read(dir, cache)).toBe(await read(dir, null));
  });

  it('a run killed while appending to its pack leaves a pack that is not trusted; the next run equals an uncached one', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const saved = process.env['CACHECOST_CACHE_DIR'];
    process.env['CACHECOST_CACHE_DIR'] = cacheDir;
    try {
      const argv = ['report', dir, '--by', 'session', '--json'];
      expect((await startCli(argv).done).code).toBe(0);
      const path = packOf(cacheDir);
      const size = statSync(path).size;
      grow(dir, 1);
      const killed = await startCli(argv, [new URL('./support/kill-on-pack-append.mjs', import.meta.url).pathname])
        .done;
      expect(killed.signal).toBe('SIGKILL');
      expect(statSync(path).size, 'a part of a segment is left at the end').toBeGreaterThan(size);
      // Trusted, the pack would serve the main session's old numbers (its line entries are gone).
      dropLineEntries(cacheDir);
      rewriteInvisibly(dir);
      const uncached = await startCli([...argv, '--no-cache']).done;
      expect(uncached.code).toBe(0);
      const rerun = await startCli(argv).done;
      expect(rerun.stdout).toBe(uncached.stdout);
      const warm = await startCli(argv).done;
      expect(warm.stdout).toBe(uncached.stdout);
    } finally {
      if (saved === undefined) delete process.env['CACHECOST_CACHE_DIR'];
      else process.env['CACHECOST_CACHE_DIR'] = saved;
    }
  }, 120_000);

  it('a run killed while writing its pack leaves nothing that is trusted; the next run equals an uncached one', async () => {
    const dir = logs();
    const cacheDir = join(root, `cache-${counter}`);
    const saved = process.env['CACHECOST_CACHE_DIR'];
    process.env['CACHECOST_CACHE_DIR'] = cacheDir;
    try {
      const argv = ['report', dir, '--by', 'session', '--json'];
      const uncached = await startCli([...argv, '--no-cache']).done;
      expect(uncached.code).toBe(0);
      const killed = await startCli(argv, [new URL('./support/kill-on-pack-write.mjs', import.meta.url).pathname]).done;
      expect(killed.signal).toBe('SIGKILL');
      const names = readdirSync(join(cacheDir, 'parsed-v1'));
      expect(
        names.some((name) => /^run-.*\.pack\..*\.tmp$/.test(name)),
        'a half-written temp is left',
      ).toBe(true);
      expect(names.filter((name) => name.endsWith('.pack'))).toEqual([]);
      // The line entries were written before the pack: the next run builds from them and writes the pack.
      const rerun = await startCli(argv).done;
      expect(rerun.stdout).toBe(uncached.stdout);
      expect(readdirSync(join(cacheDir, 'parsed-v1')).filter((name) => name.endsWith('.pack'))).toHaveLength(1);
      const warm = await startCli(argv).done;
      expect(warm.stdout).toBe(uncached.stdout);
    } finally {
      if (saved === undefined) delete process.env['CACHECOST_CACHE_DIR'];
      else process.env['CACHECOST_CACHE_DIR'] = saved;
    }
  }, 120_000);
});
