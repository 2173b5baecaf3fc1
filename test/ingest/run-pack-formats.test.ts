// The run pack holds FreeCode and Codex sessions as it holds Claude Code's (src/ingest/index.ts,
// `packedSession`): a re-run over unchanged logs is served from it, and a log whose size or mtime
// moved is read again.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openParseCache, type ParseCache } from '../../src/ingest/index.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { agedCopy } from '../support/aged-copy.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-run-pack-formats-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
/** An hour ago: files the pack trusts (not racy). */
const OLD = new Date(Date.now() - 3_600_000);

/** A copy of a fixture whose files are an hour old. */
function logs(fixture: string): string {
  counter += 1;
  return agedCopy(fixture, join(root, `logs-${counter}`), OLD);
}

async function cacheAt(dir: string): Promise<ParseCache> {
  const cache = await openParseCache(dir, { mustExist: null, nowMs: Date.now() });
  if (cache === null) throw new Error('cache did not open');
  return cache;
}

/** Every session and ingest issue of a `usage` run (as `report` and `sessions` read them). */
async function read(dir: string, cache: ParseCache | null, readsItems = true): Promise<string> {
  const sessions: string[] = [];
  const issues = await forEachSession([dir], { content: 'usage', cache, readsItems }, (session) => {
    const { id, requests, events, issues: sessionIssues } = session;
    sessions.push(JSON.stringify(readsItems ? session : { id, requests, events, issues: sessionIssues }));
  });
  return JSON.stringify({ sessions, issues });
}

/** Replaces the first `from` in `file` by `to` (the same length), keeping its mtime: a change stat cannot see. */
function rewriteInvisibly(file: string, from: string, to: string): void {
  expect(to).toHaveLength(from.length);
  const { mtime } = statSync(file);
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
  utimesSync(file, mtime, mtime);
}

const CASES = [
  {
    format: 'FreeCode',
    fixture: 'test/fixtures/freecode/home-newest',
    file: 'rollout/sessions/7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34/events.jsonl',
    from: '"outputTokens":212',
    to: '"outputTokens":213',
  },
  {
    format: 'Codex',
    fixture: 'test/fixtures/codex',
    file: 'sessions/2026/01/02/rollout-2026-01-02T10-00-00-0190aaaa-0000-7000-8000-000000000001.jsonl',
    from: '"output_tokens":50',
    to: '"output_tokens":51',
  },
] as const;

describe('run pack over other formats', () => {
  for (const { format, fixture, file, from, to } of CASES) {
    it(`serves a re-run over unchanged ${format} logs from the pack, and reads a log again once its mtime moved`, async () => {
      const dir = logs(fixture);
      const cache = await cacheAt(join(root, `cache-${counter}`));
      const before = await read(dir, null);
      expect(await read(dir, cache), 'the first run, which writes the pack').toBe(before);
      const bill = await read(dir, null, false);
      expect(await read(dir, cache, false), 'served without its items').toBe(bill);

      rewriteInvisibly(join(dir, file), from, to);
      const after = await read(dir, null);
      expect(after, 'the rewrite changes what is read').not.toBe(before);
      expect(await read(dir, cache), 'served from the pack').toBe(before);

      const moved = new Date(OLD.getTime() + 1_000);
      utimesSync(join(dir, file), moved, moved);
      expect(await read(dir, cache), 'read again').toBe(after);
      expect(await read(dir, cache), 'and stored again').toBe(after);
    });
  }

  it('keeps no session in text mode (the pack would hold the logs’ content)', async () => {
    const dir = logs(CASES[0].fixture);
    const cacheDir = join(root, `cache-${counter}`);
    const cache = await cacheAt(cacheDir);
    await forEachSession([dir], { content: 'text', cache }, () => undefined);
    const packs = readdirSync(join(cacheDir, 'parsed-v1')).filter((name) => name.endsWith('.pack'));
    expect(packs).toEqual([]);
  });
});
