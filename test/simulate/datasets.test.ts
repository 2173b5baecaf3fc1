/**
 * Acceptance of the replay (replay.md §6, fidelity) on the generated sessions (datasets/freecode): the recorded replay
 * reproduces the measured prompts, and each scenario shows what it was generated to show.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { loadBundledPriceTable, priceUsage } from '../../src/cost/index.js';
import type { Session } from '../../src/session/model.js';
import type { ReplayResult } from '../../src/simulate/replay.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import type { SessionSimulation } from '../../src/simulate/simulate-session.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';

const DATASETS = join(import.meta.dirname, '..', '..', 'datasets', 'freecode');
const prices = loadBundledPriceTable();
const scenarios = buildScenarios(['freecode', 'window-only', 'none'], { targetTokens: [120_000] });
const simulations = new Map<string, SessionSimulation>();

/** The scenario name from the title the generator writes (`runaway: …`, `healthy: …`). */
function scenarioName(session: Session): string {
  return (session.title ?? session.id).split(':')[0] ?? session.id;
}

function result(sim: SessionSimulation, name: string): ReplayResult {
  const found = sim.results.find((r) => r.scenario.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found.result;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const billed = (r: ReplayResult) => r.rows.filter((row) => row.kind !== 'rejected_overflow');

/** Exact cost of a replay in pico-dollars (the TypeScript pricing reference). */
function costPico(sim: SessionSimulation, r: ReplayResult): bigint {
  let total = 0n;
  for (const row of billed(r)) {
    const cost = priceUsage(prices, row);
    if (cost === null) throw new Error(`unpriced model ${row.model} in ${sim.session.id}`);
    total += cost.totalPicoUsd;
  }
  return total;
}

beforeAll(async () => {
  await forEachSession([DATASETS], { content: 'text' }, (session) => {
    const provider = session.requests[0]?.provider ?? null;
    simulations.set(
      scenarioName(session),
      simulateSession(session, scenarios, { modelFacts: modelFactsFor(prices, provider) }),
    );
  });
}, 120_000);

describe('datasets/freecode under simulate', () => {
  it('holds every scenario the generator writes', () => {
    expect([...simulations.keys()].sort()).toEqual(
      [
        'blocked-hook-storm',
        'cache-bust-pruning',
        'healthy',
        'overflow-loop',
        'runaway',
        'runaway-08e19c43',
        'runaway-65f171fa',
      ].sort(),
    );
  });

  it('the recorded replay of every session is within 2% of its measured prompt tokens', () => {
    for (const [name, sim] of simulations) {
      const measured = sum(sim.session.requests.map((r) => r.usage?.promptTokens ?? 0));
      const replayed = sum(
        result(sim, 'recorded')
          .rows.filter((r) => r.kind === 'request')
          .map((r) => r.promptTokens),
      );
      expect(Math.abs(replayed - measured) / measured, name).toBeLessThan(0.02);
    }
  });

  it('runaway under window-only never compacts and stays within 1% of its recorded prompt tokens', () => {
    const sim = simulations.get('runaway');
    if (sim === undefined) throw new Error('runaway missing');
    const windowOnly = result(sim, 'window-only');
    expect(windowOnly.compactions.filter((c) => c.compacted)).toHaveLength(0);
    const measured = sum(sim.session.requests.map((r) => r.usage?.promptTokens ?? 0));
    const replayed = sum(billed(windowOnly).map((r) => r.promptTokens));
    expect(Math.abs(replayed - measured) / measured).toBeLessThan(0.01);
  });

  it('runaway at a 120K target compacts and costs far less than recorded', () => {
    const sim = simulations.get('runaway');
    if (sim === undefined) throw new Error('runaway missing');
    const freecode = result(sim, 'freecode@120000');
    expect(freecode.compactions.filter((c) => c.compacted).length).toBeGreaterThan(3);
    const recordedCost = costPico(sim, result(sim, 'recorded'));
    const freecodeCost = costPico(sim, freecode);
    expect(Number(freecodeCost) / Number(recordedCost)).toBeLessThan(0.5);
  });

  it('overflow-loop: three overflow compactions in one turn, then the turn fails (recorded)', () => {
    const sim = simulations.get('overflow-loop');
    if (sim === undefined) throw new Error('overflow-loop missing');
    const recorded = result(sim, 'recorded');
    expect(recorded.failedTurns).toBe(1);
    // The failing turn: its compactions all precede the same request.
    const byRequest = new Map<number, number>();
    for (const c of recorded.compactions) byRequest.set(c.requestIndex, (byRequest.get(c.requestIndex) ?? 0) + 1);
    expect(Math.max(...byRequest.values())).toBeGreaterThanOrEqual(3);
    expect(recorded.rows.filter((r) => r.kind === 'rejected_overflow').length).toBeGreaterThanOrEqual(4);
  });

  it('cache-bust-pruning recovers its cache reads under the prefix-stable pruning', () => {
    const sim = simulations.get('cache-bust-pruning');
    if (sim === undefined) throw new Error('cache-bust-pruning missing');
    const readShare = (r: ReplayResult) =>
      sum(billed(r).map((x) => x.cacheReadTokens)) / sum(billed(r).map((x) => x.promptTokens));
    expect(readShare(result(sim, 'recorded'))).toBeLessThan(0.5);
    expect(readShare(result(sim, 'freecode@120000'))).toBeGreaterThan(0.85);
  });

  it('healthy: the freecode scenario compacts where the log did', () => {
    const sim = simulations.get('healthy');
    if (sim === undefined) throw new Error('healthy missing');
    const recorded = result(sim, 'recorded').compactions.map((c) => c.requestIndex);
    const freecode = result(sim, 'freecode@120000')
      .compactions.filter((c) => c.compacted)
      .map((c) => c.requestIndex);
    expect(freecode).toEqual(recorded);
  });

  it('blocked-hook-storm: the hook blocks every compaction, and never before 5,000 tokens of growth', () => {
    const sim = simulations.get('blocked-hook-storm');
    if (sim === undefined) throw new Error('blocked-hook-storm missing');
    const freecode = result(sim, 'freecode@120000');
    expect(freecode.compactions.length).toBeGreaterThan(3);
    expect(freecode.compactions.every((c) => c.hookBlocked)).toBe(true);
  });
});
