import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AUTO_COMPACT_BUFFER_TOKENS,
  DEFAULT_COMPACT_TARGET_TOKENS,
  DEFAULT_ENGINE_PARAMS,
  FALLBACK_CONTEXT_LIMIT,
  OUTPUT_TOKEN_CAP,
  compactThresholdTokens,
  engineParams,
  estimateTokenCount,
  shouldCompact,
  usableWindow,
} from '../../src/engine/index.js';

describe('token accounting (engine.md §1)', () => {
  it('has FreeCode constants', () => {
    expect(FALLBACK_CONTEXT_LIMIT).toBe(100_000);
    expect(DEFAULT_COMPACT_TARGET_TOKENS).toBe(120_000);
    expect(DEFAULT_AUTO_COMPACT_BUFFER_TOKENS).toBe(13_000);
    expect(OUTPUT_TOKEN_CAP).toBe(32_000);
  });

  it('estimates ceil(UTF-16 length / 4), 0 for the empty string', () => {
    expect(estimateTokenCount('')).toBe(0);
    expect(estimateTokenCount('a')).toBe(1);
    expect(estimateTokenCount('abcd')).toBe(1);
    expect(estimateTokenCount('abcde')).toBe(2);
    // One astral character is two UTF-16 code units.
    expect(estimateTokenCount('\u{1F600}\u{1F600}a')).toBe(2);
  });

  it('triggers at 107,000 with defaults on a 200K or 1M window, not at 106,999', () => {
    for (const windowTokens of [200_000, 1_000_000, 968_000]) {
      expect(shouldCompact(106_999, windowTokens, DEFAULT_ENGINE_PARAMS)).toBe(false);
      expect(shouldCompact(107_000, windowTokens, DEFAULT_ENGINE_PARAMS)).toBe(true);
    }
  });

  it('uses the 100K fallback window (trigger 87,000) when no positive limit is known', () => {
    for (const limit of [undefined, 0, -5]) {
      expect(compactThresholdTokens(limit, DEFAULT_ENGINE_PARAMS)).toBe(87_000);
      expect(shouldCompact(86_999, limit, DEFAULT_ENGINE_PARAMS)).toBe(false);
      expect(shouldCompact(87_000, limit, DEFAULT_ENGINE_PARAMS)).toBe(true);
    }
  });

  it('honours the target: 60,000 triggers at 47,000; 500,000 lets 270K on a 968K window pass', () => {
    const low = engineParams({ targetTokens: 60_000 });
    expect(compactThresholdTokens(200_000, low)).toBe(47_000);
    expect(shouldCompact(46_999, 200_000, low)).toBe(false);
    expect(shouldCompact(47_000, 200_000, low)).toBe(true);
    const high = engineParams({ targetTokens: 500_000 });
    expect(shouldCompact(270_000, 968_000, high)).toBe(false);
    expect(compactThresholdTokens(968_000, high)).toBe(487_000);
  });

  it('binds the window when it is below the target', () => {
    expect(compactThresholdTokens(64_000, DEFAULT_ENGINE_PARAMS)).toBe(51_000);
    expect(compactThresholdTokens(10_000, DEFAULT_ENGINE_PARAMS)).toBe(0);
  });

  it('with the auto-compact override, compares to it alone (no buffer, no window, no target)', () => {
    const params = engineParams({ autoCompactOverrideTokens: 12_000 });
    expect(shouldCompact(11_999, 200_000, params)).toBe(false);
    expect(shouldCompact(12_000, 200_000, params)).toBe(true);
    expect(shouldCompact(12_000, undefined, params)).toBe(true);
    expect(compactThresholdTokens(5_000, params)).toBe(12_000);
  });

  it('computes the usable window as limit − min(output || 32,000, 32,000) (§1.4)', () => {
    expect(usableWindow(1_000_000, 128_000)).toBe(968_000);
    expect(usableWindow(200_000, 8_192)).toBe(191_808);
    expect(usableWindow(200_000, undefined)).toBe(168_000);
    expect(usableWindow(200_000, 0)).toBe(168_000);
    // Not positive after the reservation: the full limit.
    expect(usableWindow(20_000, undefined)).toBe(20_000);
    expect(usableWindow(32_000, 64_000)).toBe(32_000);
    expect(usableWindow(undefined, 4_096)).toBeUndefined();
    expect(usableWindow(0, 4_096)).toBeUndefined();
    expect(usableWindow(200_000, undefined, 20_000)).toBe(180_000);
  });
});
