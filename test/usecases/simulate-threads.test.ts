/**
 * `simulate` with replay workers beside the main thread (`usecases/simulate-share.ts`) gives the
 * same report, notices, HTML drill-down data and CSV tables, byte for byte, as with one thread:
 * outcomes are used in discovery order whichever thread replayed them, and Claude Code sessions
 * (deduplicated against the sessions before them, formats.md §1.5) and sessions above the worker
 * bound (`WORKER_MAX_SESSION_BYTES`) stay on the main thread.
 *
 * Checked against deliberate bugs (each failed here): outcomes used in the order they arrived
 * (`OrderedOutcomes.put` using `outcome` at once), and a worker's sessions' ingest issues left
 * out (`SessionShare.finish` returning an empty map).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ParallelParse, WorkerScript } from '../../src/ingest/index.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { simulateSessions } from '../../src/usecases/simulate.js';
import { discoverSessions } from '../../src/ingest/index.js';
import { resolvePrices } from '../../src/usecases/prices.js';
import { ReplayShare, sourceBytes } from '../../src/usecases/simulate-share.js';

const REPO = join(import.meta.dirname, '..', '..');
const REAL_LOGS = join(REPO, '..', 'shared', 'real-logs');
const DATASET = join(REPO, 'datasets', 'freecode');
const FIXTURES = join(REPO, 'test', 'fixtures');

/** The production replay worker run from its TypeScript source. */
const SOURCE_REPLAY_WORKER: WorkerScript = {
  url: new URL('../../src/usecases/simulate-worker.ts', import.meta.url),
  execArgv: ['--import', new URL('../tune/support/register-ts-worker-hooks.mjs', import.meta.url).href],
};
const ONE_THREAD: ParallelParse = { workers: 0, minBytes: 0 };
/** A worker that replays every session but Claude Code's (the main thread leaves them all to it). */
const WORKER_TAKES_ALL: ParallelParse = { workers: 1, minBytes: 0, mainShare: 0 };
/** A worker and the main thread each taking the next free session. */
const ONE_WORKER: ParallelParse = { workers: 1, minBytes: 0 };

const root = mkdtempSync(join(tmpdir(), 'cachecost-simulate-threads-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let started: Worker[] = [];
const onWorker = (worker: Worker): void => {
  started.push(worker);
};
beforeEach(() => {
  started = [];
  process.on('worker', onWorker);
});
afterEach(() => {
  process.off('worker', onWorker);
});

/** The run's outcome as bytes: the JSON report, notices, drill-down data and each CSV table. */
async function run(paths: readonly string[], parallel: ParallelParse, label: string): Promise<Record<string, string>> {
  const csvDir = join(root, label);
  const outcome = await simulateSessions({
    paths,
    scenarios: buildScenarios(['freecode', 'none'], {}),
    csvDir,
    details: true,
    parallel,
    workerScript: SOURCE_REPLAY_WORKER,
  });
  const bytes: Record<string, string> = {
    report: JSON.stringify(outcome.report, null, 2),
    notices: JSON.stringify(outcome.notices),
    details: JSON.stringify(outcome.details, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value)),
  };
  for (const name of readdirSync(csvDir).sort()) bytes[name] = readFileSync(join(csvDir, name), 'utf8');
  return bytes;
}

describe('simulate with a replay worker', () => {
  it.each([
    ['datasets/freecode', [DATASET]],
    ['FreeCode and Claude Code fixtures with bad lines', [join(FIXTURES, 'freecode'), join(FIXTURES, 'claude-code')]],
  ])('gives the one-thread bytes on %s', async (label, paths) => {
    const one = await run(paths, ONE_THREAD, `${label}-1`);
    expect(started).toHaveLength(0);
    const report = JSON.parse(one['report'] ?? '{}') as { sessions: unknown[]; issues: unknown[] };
    expect(report.sessions.length).toBeGreaterThan(1);
    for (const [name, parallel] of [
      ['all', WORKER_TAKES_ALL],
      ['shared', ONE_WORKER],
    ] as const) {
      const two = await run(paths, parallel, `${label}-${name}`);
      expect(Object.keys(two)).toEqual(Object.keys(one));
      for (const [file, text] of Object.entries(one)) expect(two[file], `${name}: ${file}`).toBe(text);
    }
    expect(started).toHaveLength(2);
  });

  it('keeps the ingest issues of the sessions a worker replayed, in discovery order', async () => {
    const paths = [join(FIXTURES, 'freecode'), join(FIXTURES, 'claude-code')];
    const one = await run(paths, ONE_THREAD, 'issues-1');
    expect((JSON.parse(one['report'] ?? '{}') as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const two = await run(paths, WORKER_TAKES_ALL, 'issues-2');
    expect(two['report']).toBe(one['report']);
  });

  it.skipIf(!existsSync(REAL_LOGS))('gives the one-thread bytes on ../shared/real-logs (every format)', async () => {
    const one = await run([REAL_LOGS], ONE_THREAD, 'real-1');
    const two = await run([REAL_LOGS], WORKER_TAKES_ALL, 'real-2');
    expect(started).toHaveLength(1);
    for (const [name, text] of Object.entries(one)) expect(two[name], name).toBe(text);
  });

  it('leaves a session above the worker bound to the main thread, whatever the thread count', async () => {
    const { sources } = await discoverSessions([DATASET]);
    const sizes = sources.map((source) => sourceBytes(source));
    const bound = [...sizes].sort((a, b) => a - b)[Math.floor(sizes.length / 2)] ?? 0;
    expect(sizes.some((size) => size > bound) && sizes.filter((size) => size <= bound).length > 1).toBe(true);
    const share = new ReplayShare({
      config: { scenarios: buildScenarios(['freecode'], {}), prices: await resolvePrices(null), details: false },
      onOutcome: () => undefined,
      explicit: true,
      workerScript: SOURCE_REPLAY_WORKER,
      workerMaxSessionBytes: bound,
    });
    try {
      share.start(sources, { parallel: WORKER_TAKES_ALL, busyCores: 0 });
      expect(share.threads).toBe(1);
      // Left to the worker (this thread takes none): every session but the large ones.
      const here = sources.map((_, index) => !share.took(index));
      expect(here).toEqual(sizes.map((size) => size > bound));
      const taken = await share.finish();
      expect([...taken.keys()].sort((a, b) => a - b)).toEqual(
        sizes.flatMap((size, index) => (size > bound ? [] : [index])),
      );
    } finally {
      await share.stop();
    }
    // A bound no session fits under starts no worker.
    const none = new ReplayShare({
      config: { scenarios: buildScenarios(['freecode'], {}), prices: await resolvePrices(null), details: false },
      onOutcome: () => undefined,
      explicit: true,
      workerScript: SOURCE_REPLAY_WORKER,
      workerMaxSessionBytes: 0,
    });
    none.start(sources, { parallel: WORKER_TAKES_ALL, busyCores: 0 });
    expect(none.threads).toBe(0);
    expect(sources.every((_, index) => !none.took(index))).toBe(true);
  });

  it('starts no worker for Claude Code sessions alone (they stay on the main thread)', async () => {
    await run([join(FIXTURES, 'claude-code')], ONE_WORKER, 'claude-only');
    expect(started).toHaveLength(0);
  });
});
