import { describe, expect, it } from 'vitest';
import { billedWrite5mTokens, unknownTtlTokens } from '../../src/session/cache-class-tokens.js';

describe('measured cache writes by column', () => {
  it('puts every write that is not a known 1h write in the 5m column, so the columns add up', () => {
    // A full split, no split, and only one half of it given.
    const cases = [
      { write: 100, w5m: 60, w1h: 40, column5m: 60, unknown: 0 },
      { write: 100, w5m: null, w1h: null, column5m: 100, unknown: 100 },
      { write: 100, w5m: 60, w1h: null, column5m: 100, unknown: 40 },
      { write: 100, w5m: null, w1h: 40, column5m: 60, unknown: 60 },
    ];
    for (const { write, w5m, w1h, column5m, unknown } of cases) {
      const usage = { cacheWriteTokens: write, cacheWrite5mTokens: w5m, cacheWrite1hTokens: w1h };
      expect(billedWrite5mTokens(usage)).toBe(column5m);
      expect(billedWrite5mTokens(usage) + (w1h ?? 0)).toBe(write);
      expect(unknownTtlTokens(write, w5m, w1h)).toBe(unknown);
    }
  });
});
