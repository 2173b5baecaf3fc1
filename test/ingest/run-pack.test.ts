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
 * (requests, claims, items: the damage test failed for that blob).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openParseCache, type ParseCache } from '../../src/ingest/index.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { startCli } from '../robust/spawn-cli.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-run-pack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

const OLD = new Date(Date.now() - 3_600_000);
const MAIN = join('projects', '-home-me-app', 'S1.jsonl');

/** A copy of the Claude Code fixture whose files are an hour old (not racy). */
function logs(): string {
  counter += 1;
  const dir = join(root, `logs-${counter}`);
  cpSync('test/fixtures/claude-code', dir, { recursive: true });
  const touch = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) touch(child);
      else utimesSync(child, OLD, OLD);
    }
  };
  touch(dir);
  return dir;
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
  header: { indexBytes: number; eagerBytes: number };
  bodyStart: number;
  sessions: { files: unknown[]; claims: Blob; requests?: Blob; items?: Blob; whole?: Blob }[];
};

/** The pack's header, where its body starts, and its sessions' blobs (what the damage cases aim at). */
function layout(pack: Buffer): PackLayout {
  const split = pack.indexOf(0x0a);
  const header = JSON.parse(pack.toString('utf8', 0, split)) as PackLayout['header'];
  const index = JSON.parse(pack.toString('utf8', split + 1, split + 1 + header.indexBytes)) as {
    sessions: PackLayout['sessions'];
  };
  return { header, bodyStart: split + 1, sessions: index.sessions };
}

/** The file offset of the middle byte of the main session's blob `which`. */
function blobByte(pack: Buffer, which: 'claims' | 'requests' | 'items'): number {
  const { header, bodyStart, sessions } = layout(pack);
  const main = sessions.find((session) => session.files.length === 3);
  const blob = main?.[which];
  if (blob === undefined) throw new Error(`no ${which} blob for the main session`);
  const region = bodyStart + header.indexBytes + (which === 'items' ? header.eagerBytes : 0);
  return region + blob[0] + Math.floor(blob[1] / 2);
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
  for (const name of readdirSync(dir)) if (name.endsWith('.jsonl')) rmSync(join(dir, name));
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
        const at = pack.indexOf(0x0a) + 40;
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
