/**
 * Building whole sessions ahead on worker threads (`build-ahead.ts`, `build-jobs.ts`, and
 * `keepBuiltAlone` in `claude-code/index.ts`): a run whose sessions are built by workers (from the
 * last one backwards, while the run builds from the first, or all of them when the run's share is
 * 0) yields the same sessions, requests and issues, in the same order,
 * as a run in one thread — on the fixtures, on the real logs, on generated sessions that share
 * responses (resumed copies, formats.md §1.5: the first session in discovery order counts them),
 * when a worker dies or fails its builds, and with the run pack (the same pack, and the re-run it
 * serves).
 *
 * Checked against deliberate bugs (each failed here): a session built alone kept although a session
 * before it holds a response it asked for (no holder check); its claims not made in the run's map;
 * the items' bytes decoded without being made `Buffer`s again; the passed-over sessions not
 * dropped (`head` not moved); the run's place moved past the session it waits for before it
 * waits (no worker is sent that session: the run builds it once the workers are idle, and the
 * workers left every session built fewer than all).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildAhead } from '../../../src/ingest/claude-code/build-ahead.js';
import type { ParallelParse } from '../../../src/ingest/claude-code/parse-ahead.js';
import type { ContentMode } from '../../../src/ingest/content-mode.js';
import {
  discoverSessions,
  loadSession,
  newIngestRun,
  openParseCache,
  openRunPack,
  type ParseCache,
  startBuildAhead,
} from '../../../src/ingest/index.js';
import { forEachSession } from '../../../src/usecases/for-each-session.js';
import { DYING_BUILD_WORKER, FAILING_BUILD_WORKER, SOURCE_PARSE_WORKER } from '../support/parse-worker-script.js';

const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'real-logs', 'claude-code');
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code');
const root = mkdtempSync(join(tmpdir(), 'cachecost-build-ahead-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ONE_THREAD: ParallelParse = { workers: 0, minBytes: 0 };
const BUILDERS: ParallelParse = { workers: 1, minBytes: 0, sessions: true, workerScript: SOURCE_PARSE_WORKER };

/** Everything a run yields, as JSON: each session (in order) and the run's issues. */
async function runJson(
  paths: readonly string[],
  content: ContentMode,
  parallel: ParallelParse,
  cache: ParseCache | null = null,
): Promise<string> {
  const sessions: string[] = [];
  const issues = await forEachSession(paths, { content, cache, parallel }, (session) => {
    sessions.push(JSON.stringify(session));
  });
  return JSON.stringify({ sessions, issues });
}

/**
 * A run as `forEachSession` makes it, with the sessions built ahead by `parallel`: its JSON (as
 * `runJson`) and how many sessions the workers and the main thread built ahead.
 */
async function runBuilt(
  paths: readonly string[],
  content: ContentMode,
  parallel: ParallelParse,
): Promise<{ readonly json: string; readonly taken: BuildAhead['taken'] }> {
  const { sources, issues: found } = await discoverSessions(paths);
  const run = newIngestRun();
  const builds = startBuildAhead(sources, { content, parallel });
  expect(builds).not.toBeNull();
  const sessions: string[] = [];
  const issues = [...found];
  try {
    for (const source of sources) {
      const session = await loadSession(source, { content, run, builds });
      issues.push(...session.issues);
      sessions.push(JSON.stringify(session));
    }
  } finally {
    await builds?.close();
  }
  return { json: JSON.stringify({ sessions, issues }), taken: { ...(builds?.taken ?? { byWorkers: 0, here: 0 }) } };
}

// --- generated sessions that share responses (formats.md §1.2–§1.6) ---

type GenLine =
  | { readonly kind: 'assistant'; readonly response: number; readonly output: number; readonly text: string }
  | { readonly kind: 'user'; readonly text: string }
  | { readonly kind: 'broken' };

const genText = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('é', '日本', '\ud83d\ude00', 'a"b\\c'));

const genLine: fc.Arbitrary<GenLine> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      // Few responses, shared by every session: resumed copies hold responses of another session.
      response: fc.nat({ max: 5 }),
      output: fc.nat({ max: 50 }),
      text: genText,
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('user' as const), text: genText }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'broken' as const }), weight: 1 },
);

function lineText(line: GenLine, session: string, file: number, n: number): string {
  const envelope = {
    uuid: `${session}-f${file}-u${n}`,
    parentUuid: n === 0 ? null : `${session}-f${file}-u${n - 1}`,
    sessionId: session,
    cwd: '/home/me/app',
    timestamp: `2026-01-01T00:${String(n % 60).padStart(2, '0')}:00.000Z`,
  };
  switch (line.kind) {
    case 'assistant':
      return JSON.stringify({
        type: 'assistant',
        ...envelope,
        requestId: `req_${line.response}`,
        message: {
          id: `msg_${line.response}`,
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: line.text }],
          usage: { input_tokens: 3, cache_read_input_tokens: n, output_tokens: line.output },
        },
      });
    case 'user':
      return JSON.stringify({ type: 'user', ...envelope, message: { role: 'user', content: line.text } });
    case 'broken':
      return '{"type":"assistant", "message":';
  }
}

type GenSession = { readonly main: readonly GenLine[]; readonly agents: readonly (readonly GenLine[])[] };

const genSessions: fc.Arbitrary<GenSession[]> = fc.array(
  fc.record({
    main: fc.array(genLine, { maxLength: 10 }),
    agents: fc.array(fc.array(genLine, { maxLength: 6 }), { maxLength: 2 }),
  }),
  { minLength: 2, maxLength: 6 },
);

let written = 0;

/** Writes the sessions as a Claude Code projects tree; returns its root. */
function writeSessions(sessions: readonly GenSession[]): string {
  written += 1;
  const dir = join(root, `gen-${written}`, 'projects', '-home-me-app');
  mkdirSync(dir, { recursive: true });
  sessions.forEach((session, s) => {
    const id = `0000000${s}-aaaa-bbbb-cccc-dddddddddddd`;
    // A first user line: a file that starts broken or empty is not recognised as a transcript.
    const main: GenLine[] = [{ kind: 'user', text: 'go' }, ...session.main];
    writeFileSync(join(dir, `${id}.jsonl`), main.map((line, n) => `${lineText(line, id, 0, n)}\n`).join(''));
    session.agents.forEach((lines, a) => {
      const agents = join(dir, id, 'subagents');
      mkdirSync(agents, { recursive: true });
      const text = lines.map((line, n) => `${lineText(line, id, 10 + a, n)}\n`).join('');
      writeFileSync(join(agents, `agent-a${a}.jsonl`), text);
    });
  });
  return join(dir, '..', '..');
}

describe('building sessions ahead on worker threads', () => {
  it('reads the fixtures and the real logs as one thread does', { timeout: 60_000 }, async () => {
    for (const paths of [[FIXTURES], [REAL_LOGS], [REAL_LOGS, FIXTURES]]) {
      for (const content of ['usage', 'sizes'] as const) {
        const one = await runJson(paths, content, ONE_THREAD);
        expect(await runJson(paths, content, BUILDERS)).toBe(one);
        expect(await runJson(paths, content, { ...BUILDERS, mainShare: 0.4 })).toBe(one);
        // The run leaves every session to the workers: this checks the workers' path.
        const built = await runBuilt(paths, content, { ...BUILDERS, workers: 2, mainShare: 0 });
        expect(built.json).toBe(one);
        expect(built.taken.byWorkers).toBeGreaterThan(0);
      }
    }
  });

  it('builds generated sessions that share responses as one thread does', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        genSessions,
        fc.constantFrom(1, 2),
        fc.constantFrom(0, 0.4, 1),
        fc.constantFrom('usage', 'sizes') as fc.Arbitrary<ContentMode>,
        async (sessions, workers, mainShare, content) => {
          const dir = writeSessions(sessions);
          const one = await runJson([dir], content, ONE_THREAD);
          const built = await runBuilt([dir], content, { ...BUILDERS, workers, mainShare });
          expect(built.json).toBe(one);
          // Left every session, the workers built them all (this checks the workers' path).
          if (mainShare === 0) expect(built.taken.byWorkers).toBe(sessions.length);
          expect(await runJson([dir], content, { ...BUILDERS, workers, mainShare })).toBe(one);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('loses nothing when a worker dies or fails its builds: the run builds those sessions', async () => {
    for (const workerScript of [DYING_BUILD_WORKER, FAILING_BUILD_WORKER]) {
      const parallel = { ...BUILDERS, workerScript, mainShare: 0 };
      for (const content of ['usage', 'sizes'] as const)
        expect(await runJson([REAL_LOGS], content, parallel)).toBe(await runJson([REAL_LOGS], content, ONE_THREAD));
    }
  });

  it('writes the same run pack, and the re-run it serves starts no worker', async () => {
    const dir = writeSessions([
      { main: [{ kind: 'assistant', response: 1, output: 5, text: 'a' }], agents: [[{ kind: 'broken' }]] },
      { main: [{ kind: 'assistant', response: 1, output: 7, text: 'b' }], agents: [] },
      { main: [{ kind: 'user', text: 'hé' }], agents: [] },
    ]);
    const nowMs = Date.now() + 60_000;
    const packs: string[] = [];
    const outputs: string[] = [];
    for (const parallel of [BUILDERS, ONE_THREAD]) {
      const cacheDir = join(root, `cache-${(written += 1)}`);
      const cache = await openParseCache(cacheDir, { mustExist: null, nowMs });
      expect(cache).not.toBeNull();
      outputs.push(await runJson([dir], 'usage', parallel, cache));
      outputs.push(await runJson([dir], 'usage', parallel, cache));
      const files = readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).sort();
      packs.push(
        JSON.stringify(
          files.filter((name) => name.includes('pack')).map((name) => readFileSync(join(cacheDir, name), 'latin1')),
        ),
      );
      const pack = openRunPack(cache, 'usage', [dir]);
      const { sources } = await discoverSessions([dir], pack);
      expect(startBuildAhead(sources, { content: 'usage', cache, pack, parallel: BUILDERS })).toBeNull();
      pack?.close();
    }
    expect(packs[0]).not.toBe('[]');
    expect(packs[0]).toBe(packs[1]);
    expect(new Set(outputs).size).toBe(1);
  });

  it('starts no worker for a small run, one session, or text mode', async () => {
    const { sources } = await discoverSessions([REAL_LOGS]);
    expect(startBuildAhead(sources, { content: 'usage', parallel: { ...BUILDERS, minBytes: 64 << 20 } })).toBeNull();
    expect(startBuildAhead(sources, { content: 'text', parallel: BUILDERS })).toBeNull();
    expect(startBuildAhead(sources, { content: 'usage', parallel: ONE_THREAD })).toBeNull();
    expect(startBuildAhead(sources.slice(0, 1), { content: 'usage', parallel: BUILDERS })).toBeNull();
    const started = startBuildAhead(sources, { content: 'usage', parallel: BUILDERS });
    expect(started).toBeInstanceOf(BuildAhead);
    await started?.close();
  });

  it('stops the workers started before discovery when the run builds nothing ahead or fails', async () => {
    // Without a cache the workers start before discovery; too few bytes: they are stopped, unused.
    const small = { ...BUILDERS, minBytes: 2 ** 40 };
    expect(await runJson([REAL_LOGS], 'usage', small)).toBe(await runJson([REAL_LOGS], 'usage', ONE_THREAD));
    await expect(
      forEachSession([join(root, 'no-such-dir')], { content: 'usage', parallel: BUILDERS }, () => undefined),
    ).rejects.toThrow(/no such file or directory/);
  });
});
