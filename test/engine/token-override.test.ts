import { describe, expect, it } from 'vitest';
import { parseToolResultBudgetChars, parseTokenOverride, resolveCompactTarget } from '../../src/engine/index.js';

describe('environment overrides passed in as strings (engine.md §1.1, §5.6)', () => {
  it('reads unset and empty as "no override", silently', () => {
    expect(parseTokenOverride(undefined)).toEqual({ value: undefined });
    expect(parseTokenOverride('')).toEqual({ value: undefined });
  });

  it('accepts what parseInt accepts, including "150k" = 150', () => {
    expect(parseTokenOverride('12000')).toEqual({ value: 12_000 });
    expect(parseTokenOverride('150k')).toEqual({ value: 150 });
    expect(parseTokenOverride(' 42')).toEqual({ value: 42 });
  });

  it('rejects non-positive or non-numeric values with a warning naming the variable', () => {
    for (const raw of ['abc', '0', '-5', 'k150']) {
      const parsed = parseTokenOverride(raw, 'FREECODE_MAX_TURN_TOKENS');
      expect(parsed.value).toBeUndefined();
      expect(parsed.warning).toContain('FREECODE_MAX_TURN_TOKENS');
      expect(parsed.warning).toContain(raw);
    }
  });

  it('resolves the compact target to 120,000 unless a valid value is given', () => {
    expect(resolveCompactTarget(undefined)).toEqual({ value: 120_000 });
    expect(resolveCompactTarget('60000')).toEqual({ value: 60_000 });
    const bad = resolveCompactTarget('lots');
    expect(bad.value).toBe(120_000);
    expect(bad.warning).toContain('FREECODE_COMPACT_TARGET_TOKENS');
  });

  it('parses the tool-result budget: newest allows 0 and defaults empty; Aug reads empty as 0', () => {
    expect(parseToolResultBudgetChars(undefined, 'newest')).toEqual({ value: 200_000 });
    expect(parseToolResultBudgetChars('', 'newest')).toEqual({ value: 200_000 });
    expect(parseToolResultBudgetChars('0', 'newest')).toEqual({ value: 0 });
    expect(parseToolResultBudgetChars('5000', 'newest')).toEqual({ value: 5_000 });
    expect(parseToolResultBudgetChars('-1', 'newest').warning).toBeDefined();
    expect(parseToolResultBudgetChars('', 'aug')).toEqual({ value: 0 });
    expect(parseToolResultBudgetChars('1e3', 'aug')).toEqual({ value: 1_000 });
    expect(parseToolResultBudgetChars('x', 'aug')).toMatchObject({ value: 200_000 });
  });
});
