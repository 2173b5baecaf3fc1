/**
 * The whole-session cache (the run pack, `ingest/run-pack.ts`): a run through a warm cache reads the same
 * sessions, requests and issues as a run without it, also when sessions share responses (resumed
 * copies, formats.md §1.5: the first session in the run counts them) and files grow between runs,
 * so that a session cached while it counted a response must not keep counting it once an earlier
 * session holds it.
 *
 * Checked against deliberate bugs (each failed here): `claimAll` returning true without checking
 * the holders (a cached session kept a response an earlier session had since claimed), caching
 * a session that lost responses to another (`!claims.lost` dropped: once the other session's file
 * is gone, the cached one would still leave them out), and the pack serving every hit without a
 * claims check, as if the run so far were always the pack's own (a session rebuilt before it had
 * since claimed one of its responses), and a session built after served ones never checked against
 * their deferred claims (`deferredHoldsAny` always false: it counted a response the served one held).
 * The claims' hash prefilter of the run pack, made to say "no match" always (in `serve` after a
 * build, then in `deferredHoldsAny`), failed here too.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openParseCache } from '../../src/ingest/index.js';
import type { ParseCache } from '../../src/ingest/index.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-session-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function assistant(session: string, n: number, response: number, output: number): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `${session}-a${n}`,
    parentUuid: null,
    sessionId: session,
    isSidechain: false,
    cwd: '/home/me/app',
    timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    requestId: `req_${response}`,
    message: {
      id: `msg_${response}`,
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: 10 + response, cache_read_input_tokens: 5, output_tokens: output },
    },
  });
}

async function read(dir: string, cache: ParseCache | null): Promise<string> {
  const sessions: unknown[] = [];
  const issues = await forEachSession([dir], { content: 'usage', cache }, (session) => {
    sessions.push(session);
  });
  return JSON.stringify({ sessions, issues });
}

const lineArb = fc.record({ response: fc.integer({ min: 0, max: 5 }), output: fc.integer({ min: 1, max: 50 }) });
const stepArb = fc.record({
  file: fc.constantFrom('a', 'b'),
  // `remove`: the file is deleted (the other session may then count what it had counted).
  op: fc.constantFrom('append', 'append', 'remove'),
  lines: fc.array(lineArb, { minLength: 1, maxLength: 3 }),
});

describe('session cache', () => {
  it('equals a run without cache, with shared responses and files growing between runs', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 4 }),
        fc.array(lineArb, { maxLength: 4 }),
        fc.array(stepArb, { maxLength: 3 }),
        async (a, b, steps) => {
          run += 1;
          const dir = join(root, `case-${run}`);
          const project = join(dir, 'projects', '-home-me-app');
          mkdirSync(project, { recursive: true });
          const ids = { a: '0aaaaaaa-0000-4000-8000-000000000001', b: '0bbbbbbb-0000-4000-8000-000000000002' };
          let n = 0;
          const text = (file: 'a' | 'b', lines: readonly { response: number; output: number }[]): string =>
            lines.map((line) => `${assistant(ids[file], (n += 1), line.response, line.output)}\n`).join('');
          writeFileSync(join(project, `${ids.a}.jsonl`), text('a', a));
          writeFileSync(join(project, `${ids.b}.jsonl`), text('b', b));
          // Entries written "later" than the files: the files are not racy, the cache serves them.
          const cache = await openParseCache(join(dir, 'cache'), { mustExist: null, nowMs: Date.now() + 10_000 });
          expect(cache).not.toBeNull();
          for (const step of [null, ...steps]) {
            if (step !== null) {
              const file = join(project, `${ids[step.file]}.jsonl`);
              if (step.op === 'remove') rmSync(file, { force: true });
              else appendFileSync(file, text(step.file, step.lines));
            }
            const expected = await read(dir, null);
            expect(await read(dir, cache), 'cold or grown').toBe(expected);
            expect(await read(dir, cache), 'warm').toBe(expected);
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
