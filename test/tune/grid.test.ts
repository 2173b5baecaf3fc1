import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildScenarios } from '../../src/simulate/scenario.js';
import type { SweepGrid } from '../../src/tune/grid.js';
import {
  expandRange,
  familyHasTarget,
  isCurvePoint,
  seriesKey,
  seriesLabel,
  sweepScenarios,
  sweepSize,
} from '../../src/tune/grid.js';

const BASE: SweepGrid = {
  families: ['freecode', 'none'],
  targetTokens: [120_000],
  bufferTokens: null,
  preserveRecentTurns: null,
  ttls: null,
  fixed: {},
};

describe('sweep grid', () => {
  it('names scenarios as simulate does: recorded first, targets ascending, none once', () => {
    const names = sweepScenarios({ ...BASE, targetTokens: [200_000, 80_000, 120_000, 80_000] }).map((s) => s.name);
    expect(names).toEqual(['recorded', 'freecode@80000', 'freecode@120000', 'freecode@200000', 'none']);
    // A one-target sweep is simulate's default scenario list, name for name.
    expect(sweepScenarios(BASE)).toEqual(buildScenarios(['freecode', 'none'], { targetTokens: [120_000] }));
  });

  it('crosses TTL × buffer × preserve-turns for target families; references get no target; none varies only by TTL', () => {
    const scenarios = sweepScenarios({
      families: ['freecode', 'window-only', 'none'],
      targetTokens: [60_000, 120_000],
      bufferTokens: [8_000, 13_000],
      preserveRecentTurns: [1],
      ttls: ['5m', '1h'],
      fixed: {},
    });
    const names = scenarios.map((s) => s.name);
    expect(names).toEqual([
      'recorded',
      'freecode@60000,buffer=8000,turns=1',
      'freecode@120000,buffer=8000,turns=1',
      'freecode@60000,turns=1',
      'freecode@120000,turns=1',
      'freecode@60000,buffer=8000,turns=1,ttl=1h',
      'freecode@120000,buffer=8000,turns=1,ttl=1h',
      'freecode@60000,turns=1,ttl=1h',
      'freecode@120000,turns=1,ttl=1h',
      'window-only,buffer=8000,turns=1',
      'window-only,turns=1',
      'window-only,buffer=8000,turns=1,ttl=1h',
      'window-only,turns=1,ttl=1h',
      'none',
      'none,ttl=1h',
    ]);
    expect(scenarios.filter((s) => s.family === 'window-only').every((s) => s.params.targetTokens === null)).toBe(true);
    // Several TTLs: recorded keeps what the agent ran; one TTL: recorded takes it, as in simulate.
    expect(scenarios[0]?.params.ttl).toBe('5m');
    expect(sweepScenarios({ ...BASE, ttls: ['1h'] })[0]?.params.ttl).toBe('1h');
    expect(
      sweepSize({
        families: ['freecode', 'window-only', 'none'],
        targetTokens: [60_000, 120_000],
        bufferTokens: [8_000, 13_000],
        preserveRecentTurns: [1],
        ttls: ['5m', '1h'],
        fixed: {},
      }),
    ).toBe(scenarios.length);
  });

  it('groups a series by everything but the target', () => {
    const scenarios = sweepScenarios({ ...BASE, targetTokens: [60_000, 120_000], ttls: ['5m', '1h'] });
    const curve = scenarios.filter(isCurvePoint);
    expect(new Set(curve.map(seriesKey)).size).toBe(2);
    expect([...new Set(curve.map(seriesLabel))]).toEqual(['freecode', 'freecode,ttl=1h']);
    expect(familyHasTarget('freecode')).toBe(true);
    expect(familyHasTarget('window-only') || familyHasTarget('none') || familyHasTarget('recorded')).toBe(false);
  });

  // Checked against a deliberate bug: `value < end` in expandRange drops an `end` on the step.
  it('expands a range to every step from start up to end, inclusive', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500_000 }),
        fc.integer({ min: 1, max: 50_000 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 49_999 }),
        (start, step, steps, extra) => {
          const end = start + steps * step + (extra % step);
          const values = expandRange(start, end, step);
          expect(values).toHaveLength(steps + 1);
          expect(values[0]).toBe(start);
          values.forEach((value, i) => expect(value).toBe(start + i * step));
          expect((values.at(-1) ?? 0) + step).toBeGreaterThan(end);
        },
      ),
    );
  });
});
