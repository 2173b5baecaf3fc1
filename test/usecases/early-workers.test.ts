/**
 * Build workers started before discovery (`earlyParallel` in `ingest/index.ts`, `forEachSession`):
 * a run that may read every session starts them before it discovers its sessions (the automatic
 * count: once discovery has found `EARLY_MIN_BYTES` of transcripts), a run the run
 * pack may serve starts none, and workers the plan does not keep are stopped: each one started
 * exits (nothing leaks: a worker left running would keep the process alive) and the output is the
 * one-thread run's. The automatic count starts one only where `parallelParse` would grant one at
 * the same load, and the idle gauge counts this process for one core at most (`busyCores`).
 *
 * Checked against deliberate bugs (each failed here): the warm workers not stopped when the plan
 * has too few bytes (`BuildAhead.start` without `warm?.stop()`: stopped only when the run ends, so
 * the first session's wait for their exit times out); the
 * loaded pack ignored (`earlyParallel` without `packLoaded`); the own-process correction applied
 * below one core (`busy - own + 1`); discovery's found logs not counted (`onFound` not passed:
 * none starts during discovery), and the worker started at the first transcript found whatever
 * its bytes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ParallelParse } from '../../src/ingest/claude-code/parse-ahead.js';
import {
  AUTOMATIC_MIN_BYTES,
  discoverSessions,
  EARLY_MIN_BYTES,
  earlyParallel,
  openParseCache,
  type ParseCache,
  parallelParse,
} from '../../src/ingest/index.js';
import type { ContentMode } from '../../src/ingest/content-mode.js';
import { busyCores, busyFromLoad, forEachSession } from '../../src/usecases/for-each-session.js';
import { AUTOMATIC_MIN_IDLE_REPLAY_CORES } from '../../src/usecases/simulate-share.js';
import { SOURCE_PARSE_WORKER } from '../ingest/support/parse-worker-script.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');
const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', 'shared', 'real-logs', 'claude-code');
const root = mkdtempSync(join(tmpdir(), 'cachecost-early-workers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An automatic-like count (a worker from a size) that no run here reaches: the plan never keeps it. */
const NEVER_KEPT: ParallelParse = { workers: 1, minBytes: 2 ** 40, sessions: true, workerScript: SOURCE_PARSE_WORKER };
const ONE_THREAD: ParallelParse = { workers: 0, minBytes: 0 };

/** Worker threads this process starts, and a promise of each one's exit. */
let started: { readonly worker: Worker; readonly exited: Promise<number> }[] = [];
const onWorker = (worker: Worker): void => {
  started.push({ worker, exited: new Promise((resolve) => worker.once('exit', resolve)) });
};
beforeEach(() => {
  started = [];
  process.on('worker', onWorker);
});
afterEach(() => {
  process.off('worker', onWorker);
});

/** A run's sessions and issues as JSON, and how many workers had started when discovery ended. */
async function run(
  paths: readonly string[],
  content: ContentMode,
  parallel: ParallelParse,
  cache: ParseCache | null,
  /** Wait in the first session for every worker started so far to exit (those the plan did not keep: stopped at once). */
  stoppedByFirst = false,
): Promise<{ readonly json: string; readonly startedByPlan: number }> {
  const sessions: string[] = [];
  let startedByPlan = -1;
  const issues = await forEachSession(
    paths,
    { content, cache, parallel },
    async (session) => {
      if (stoppedByFirst && sessions.length === 0) await Promise.all(started.map((s) => s.exited));
      sessions.push(JSON.stringify(session));
    },
    () => {
      startedByPlan = started.length;
    },
  );
  return { json: JSON.stringify({ sessions, issues }), startedByPlan };
}

describe('workers started before discovery', () => {
  it('start before the plan without a cache, are stopped when the plan keeps none, and exit', async () => {
    const alone = await run([FIXTURES, REAL_LOGS], 'usage', ONE_THREAD, null);
    // Stopped once planned, before the first session: one stopped only when the run ends, or never,
    // would not exit while the first session waits for it (the test times out).
    const early = await run([FIXTURES, REAL_LOGS], 'usage', NEVER_KEPT, null, true);
    expect(early.startedByPlan).toBe(1);
    expect(early.json).toBe(alone.json);
    expect(started).toHaveLength(1);
  });

  it('start during discovery once it has found their bytes of transcripts, and not before', async () => {
    const found: string[] = [];
    const { sources } = await discoverSessions([FIXTURES, REAL_LOGS], null, (log) => {
      if (log.format === 'claude-code') found.push(log.path);
    });
    const claude = sources.flatMap((source) =>
      source.format === 'claude-code' ? [...source.files.mainFiles, ...source.files.agentFiles.map((a) => a.file)] : [],
    );
    expect(found.length).toBeGreaterThan(1);
    expect(new Set(found)).toEqual(new Set(claude));
    let bytes = 0;
    for (const path of found) bytes += statSync(path).size;
    const alone = await run([FIXTURES, REAL_LOGS], 'usage', ONE_THREAD, null);
    // Found by the end of discovery: started during it (none before: the first file is smaller).
    const during = await run([FIXTURES, REAL_LOGS], 'usage', { ...NEVER_KEPT, earlyFromBytes: bytes }, null, true);
    expect(during.startedByPlan).toBe(1);
    expect(during.json).toBe(alone.json);
    // More than there is: none.
    const never = await run([FIXTURES, REAL_LOGS], 'usage', { ...NEVER_KEPT, earlyFromBytes: bytes + 1 }, null);
    expect(never.startedByPlan).toBe(1);
    expect(started).toHaveLength(1);
  });

  it('start on a first run with a cache, and none when the pack of that run may serve the next', async () => {
    const cache = await openParseCache(join(root, 'cache'), { mustExist: null, nowMs: Date.now() + 60_000 });
    expect(cache).not.toBeNull();
    const first = await run([FIXTURES], 'usage', NEVER_KEPT, cache);
    expect(first.startedByPlan).toBe(1);
    const again = await run([FIXTURES], 'usage', NEVER_KEPT, cache);
    expect(again.startedByPlan).toBe(1); // none more
    expect(again.json).toBe(first.json);
    // Text mode builds nothing ahead: none either.
    const text = await run([FIXTURES], 'text', NEVER_KEPT, null);
    expect(text.startedByPlan).toBe(1);
    await Promise.all(started.map((s) => s.exited));
  });

  it('only where the plan could keep them (the automatic count at the same load)', () => {
    const explicit = fc.option(
      fc.record(
        { workers: fc.nat(4), minBytes: fc.nat(), sessions: fc.constant<true>(true), earlyFromBytes: fc.nat() },
        { requiredKeys: ['workers', 'minBytes'] },
      ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        explicit,
        fc.constantFrom<ContentMode>('usage', 'sizes', 'text'),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        fc.double({ min: 0, max: 64, noNaN: true }),
        (parallel, content, packLoaded, cores, load) => {
          const early = earlyParallel({ explicit: parallel, content, packLoaded, cores, load });
          if (content === 'text' || packLoaded) expect(early).toBeNull();
          else if (parallel !== undefined)
            expect(early).toEqual(
              parallel.sessions === true && parallel.workers >= 1
                ? { parallel, fromBytes: parallel.earlyFromBytes ?? 0 }
                : null,
            );
          else {
            const granted = parallelParse(cores, undefined, load);
            expect(early === null).toBe(granted.workers < 1);
            if (cores < 2) expect(early).toBeNull();
            if (early !== null) {
              // Started once half the size is found; kept only from the automatic size, decided by the plan.
              expect(early.fromBytes).toBe(EARLY_MIN_BYTES);
              expect(early.fromBytes).toBeLessThan(AUTOMATIC_MIN_BYTES);
              expect(early.parallel.minBytes).toBe(AUTOMATIC_MIN_BYTES);
            }
          }
        },
      ),
    );
  });

  it("the load average stands for the busy cores with the run's own main thread counted busy", () => {
    // Just after an idle minute the average reads ~0 while this run's main thread is busy: on 2
    // cores that must not leave 1.5 idle (the replay worker's bound) to the gauge.
    expect(busyFromLoad(0)).toBe(1);
    expect(busyFromLoad(0.4)).toBe(1);
    expect(busyFromLoad(1.7)).toBe(1.7);
    expect(2 - busyFromLoad(0.02)).toBeLessThan(AUTOMATIC_MIN_IDLE_REPLAY_CORES);
  });

  it('the idle gauge counts this process for one core at most', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (cores, idleShare, own) => {
          const idle = idleShare * cores;
          const busy = busyCores(cores, idle, own);
          // Within one core: as measured (the main thread's own use included).
          if (own <= 1) expect(busy).toBeCloseTo(cores - idle, 9);
          else expect(busy).toBeCloseTo(Math.max(0, cores - idle - (own - 1)), 9);
          expect(busy).toBeGreaterThanOrEqual(0);
          expect(busy).toBeLessThanOrEqual(cores - idle + 1e-9);
        },
      ),
    );
  });
});
