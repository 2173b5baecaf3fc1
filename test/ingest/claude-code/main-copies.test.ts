/**
 * A session with several main transcripts (the same session id under two project folders, or a
 * copy, formats.md §1.1) holds each record once: a record a second main transcript repeats (same
 * uuid) adds no item and no request; with one main transcript nothing is skipped.
 *
 * Checked against deliberate bugs (each failed here): repeated records never skipped (every record
 * taken as its only main transcript's), and a session with two main transcripts taken as one with one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type ClaudeSessionFiles, loadClaudeSession } from '../../../src/ingest/claude-code/index.js';
import type { Session } from '../../../src/session/model.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-main-copies-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Line `n` of a transcript (uuid `${prefix}${n}`, chained to the line before): a user prompt or an answer with usage. */
function lineText(prefix: string, n: number): string {
  const envelope = {
    uuid: `${prefix}${n}`,
    parentUuid: n === 0 ? null : `${prefix}${n - 1}`,
    sessionId: 'S',
    cwd: '/home/me/app',
    timestamp: `2026-01-01T00:${String(n % 60).padStart(2, '0')}:00.000Z`,
  };
  if (n % 2 === 0)
    return JSON.stringify({ type: 'user', ...envelope, message: { role: 'user', content: `q${prefix}${n}` } });
  return JSON.stringify({
    type: 'assistant',
    ...envelope,
    requestId: `req_${prefix}${n}`,
    message: {
      id: `msg_${prefix}${n}`,
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: `a${prefix}${n}` }],
      usage: { input_tokens: 3, output_tokens: n },
    },
  });
}

let written = 0;

/** Writes main transcripts of session S, one per project folder; returns their paths. */
function writeMains(transcripts: readonly string[][]): string[] {
  written += 1;
  return transcripts.map((lines, i) => {
    const dir = join(root, `run-${written}`, 'projects', `-home-me-app-${i}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'S.jsonl');
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
    return file;
  });
}

function sessionFiles(mainFiles: readonly string[]): ClaudeSessionFiles {
  return { sessionId: 'S', mainFiles, agentFiles: [], parentSessionId: null, projectDir: null };
}

const ids = (session: Session): string[] => session.items.map((item) => item.id);

describe('several main transcripts of one session', () => {
  it('hold each repeated record once, whatever the copy shares', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.nat({ max: 8 }),
        fc.nat({ max: 4 }),
        async (length, shared, extra) => {
          const original = Array.from({ length }, (_, n) => lineText('u', n));
          // The copy repeats the start of the original (a resumed or copied session), then goes on.
          const copy = [...original.slice(0, Math.min(shared, length))];
          for (let n = 0; n < extra; n += 1) copy.push(lineText('v', n));
          const [first, second, own] = writeMains([original, copy, copy.slice(Math.min(shared, length))]);
          const load = (files: string[]): Promise<Session> =>
            loadClaudeSession(sessionFiles(files), { content: 'sizes' });
          const alone = await load([first ?? '']);
          const ownOnly = await load([own ?? '']);
          const both = await load([first ?? '', second ?? '']);
          // The original's records, then what only the copy has (read in time order, path on a tie).
          expect(ids(both)).toEqual([...ids(alone), ...ids(ownOnly)]);
          expect(both.requests.length).toBe(alone.requests.length + ownOnly.requests.length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('skips nothing in a session with one main transcript', async () => {
    const lines = [0, 1, 2, 3].map((n) => lineText('u', n));
    // The same record twice in one transcript is two lines of it (kept as the file has them).
    const [file] = writeMains([[...lines, lines[0] ?? '']]);
    const session = await loadClaudeSession(sessionFiles([file ?? '']), { content: 'sizes' });
    expect(ids(session)).toEqual(['u0', 'u1', 'u2', 'u3', 'u0']);
  });
});
