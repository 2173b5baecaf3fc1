import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import { FlagThresholdsSchema, resolveThresholds, THRESHOLD_NAMES } from '../../src/detect/thresholds-schema.js';

describe('thresholds', () => {
  it('the defaults are valid and name every threshold', () => {
    expect(FlagThresholdsSchema.parse(DEFAULT_THRESHOLDS)).toEqual(DEFAULT_THRESHOLDS);
    expect([...THRESHOLD_NAMES].sort()).toEqual(Object.keys(DEFAULT_THRESHOLDS).sort());
    // The FreeCode numbers they carry (engine.md §1.1, §4.4, §9.3).
    expect(DEFAULT_THRESHOLDS).toMatchObject({
      targetTokens: 120_000,
      holdGrowthTokens: 5_000,
      cacheBustMinMissTokens: 1_024,
    });
  });

  it('layers overrides in order, later winning', () => {
    const resolved = resolveThresholds([{ runawayCostRatio: 3, hookStormMinBlocks: 5 }, { runawayCostRatio: 4 }]);
    expect(resolved).toEqual({
      ok: true,
      thresholds: { ...DEFAULT_THRESHOLDS, runawayCostRatio: 4, hookStormMinBlocks: 5 },
    });
  });

  it('rejects an unknown name, naming it and the known ones', () => {
    const resolved = resolveThresholds([{ runawayRatio: 3 }]);
    expect(resolved.ok).toBe(false);
    if (!resolved.ok) expect(resolved.error).toMatch(/unknown threshold "runawayRatio" \(known: targetTokens, /);
  });

  it('rejects a bad value with the name of the threshold', () => {
    const resolved = resolveThresholds([{ neverCompactedMinRequests: 0 }]);
    expect(resolved.ok).toBe(false);
    if (!resolved.ok) expect(resolved.error).toMatch(/^neverCompactedMinRequests: /);
    expect(resolveThresholds(['not an object']).ok).toBe(false);
    expect(resolveThresholds([{ runawayCostRatio: 0.5 }]).ok).toBe(false);
  });
});
