import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { expandRange, sweepScenarios } from '../../src/tune/grid.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { sessionTotals } from '../../src/tune/scenario-totals.js';
import type { SessionSweep } from '../../src/tune/sweep-session.js';
import { sweepSession } from '../../src/tune/sweep-session.js';
import { buildTuneReport } from '../../src/tune/tune-report.js';
import { RUNAWAY_SHAPE, growingSession } from './support/growing-session.js';

const prices = loadBundledPriceTable();
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'freecode');

function swept(sweep: SessionSweep): Extract<SessionSweep, { kind: 'swept' }> {
  if (sweep.kind !== 'swept') throw new Error(`session ${sweep.sessionId} was skipped: ${sweep.reason}`);
  return sweep;
}

describe('sweepSession', () => {
  // Differential: the sweep fits `recorded` once and replays the rest; simulate's own path
  // (`simulateSession` over all scenarios) must give the same totals, scenario by scenario.
  it('agrees with simulateSession on every scenario of a fixture session', async () => {
    const { sources } = await discoverSessions([join(FIXTURES, 'home-newest')]);
    const source = sources[0];
    if (source === undefined) throw new Error('fixture missing');
    const session = await loadSession(source, { content: 'text' });
    const scenarios = sweepScenarios({
      families: ['freecode', 'window-only', 'none'],
      targetTokens: [6_000, 9_000, 12_000, 20_000, 60_000],
      bufferTokens: [1_000],
      preserveRecentTurns: null,
      ttls: null,
      fixed: {},
    });
    const sweep = swept(sweepSession(session, scenarios, { prices, reuseEquivalent: true }));
    const provider = session.requests.find((r) => r.provider !== null)?.provider ?? null;
    const simulation = simulateSession(session, scenarios, { modelFacts: modelFactsFor(prices, provider) });
    expect(sweep.results).toEqual(
      simulation.results.map(({ result }) =>
        sessionTotals(prices, result.rows, result.compactions, result.failedTurns),
      ),
    );
    expect(sweep.model).toBe(simulation.model);
    expect(sweep.results.some((t) => t.compactions > 0)).toBe(true);
    expect(sweep.stats.reused).toBeGreaterThan(0);
  });

  // Differential: reusing provably identical replays (same thresholds; higher thresholds after a
  // replay that never tried to compact) changes nothing. Checked against two deliberate bugs:
  // reuse after one compaction attempt (`compactions.length > 1` as "attempted"), and thresholds
  // compared without the buffer (`bufferTokens` kept out of the engine params used for them).
  it('gives the same totals with and without reuse of equivalent replays', () => {
    const arbShape = fc.record({
      model: fc.constantFrom('claude-sonnet-4-5', 'MiniMax-M3', 'gpt-5', 'deepseek-chat', 'no-such-model'),
      turns: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }),
      resultChars: fc.array(fc.integer({ min: 200, max: 120_000 }), { minLength: 1, maxLength: 4 }),
      stepSeconds: fc.integer({ min: 1, max: 400 }),
      idleSeconds: fc.integer({ min: 0, max: 4_000 }),
    });
    // 22K − 2K = 26K − 6K: two series meet on a threshold; window-only shares their trigger class
    // only when its other parameters agree (they do not: its pruning differs), so it is replayed.
    const scenarios = sweepScenarios({
      families: ['freecode', 'window-only'],
      targetTokens: [22_000, 26_000, 45_000, 70_000, 130_000, 220_000, 420_000, 1_100_000],
      bufferTokens: [2_000, 6_000],
      preserveRecentTurns: [1],
      ttls: null,
      fixed: {},
    });
    fc.assert(
      fc.property(arbShape, (shape) => {
        const session = growingSession({ id: 's', ...shape });
        const fast = swept(sweepSession(session, scenarios, { prices, reuseEquivalent: true }));
        const slow = swept(sweepSession(session, scenarios, { prices, reuseEquivalent: false }));
        expect(fast.results).toEqual(slow.results);
        expect(slow.stats.reused).toBe(0);
        expect(fast.stats.replays + fast.stats.reused).toBe(scenarios.length);
      }),
      { numRuns: 25 },
    );
  });

  it('recommends a target far below the window of a runaway session, where reads and compactions balance', () => {
    const session = growingSession(RUNAWAY_SHAPE);
    const scenarios = sweepScenarios({
      families: ['freecode', 'none'],
      targetTokens: expandRange(40_000, 400_000, 40_000),
      bufferTokens: null,
      preserveRecentTurns: null,
      ttls: null,
      fixed: {},
    });
    const sweep = swept(sweepSession(session, scenarios, { prices, reuseEquivalent: true }));
    const report = buildTuneReport({ scenarios, sweeps: [sweep], issues: [], tolerancePct: 2 });
    const r = report.overall.recommendation;
    expect(r.kind).toBe('target');
    if (r.kind !== 'target') return;
    // MiniMax-M3's window is 1M tokens; the session grows to ~280K and never compacts on its own.
    expect(r.point.targetTokens).toBeLessThanOrEqual(100_000);
    expect(report.overall.points[0]?.totals.compactions).toBe(0);
    expect(r.savingVsRecordedPct).toBeGreaterThan(30);
    // The trade-off: the smaller the target, the fewer cache-read dollars and the more compactions.
    const curve = report.overall.points.filter((p) => p.series !== null);
    const reads = curve.map((p) => p.totals.cost.cacheReadPicoUsd);
    const compactions = curve.map((p) => p.totals.compactions);
    expect(reads.every((read, i) => i === 0 || read >= (reads[i - 1] ?? 0n))).toBe(true);
    expect(compactions.every((count, i) => i === 0 || count <= (compactions[i - 1] ?? 0))).toBe(true);
    expect(report.overall.curves[0]?.knee).not.toBeNull();
  });
});
