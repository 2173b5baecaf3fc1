import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvValue } from '../../src/cost/duck-values.js';
import {
  formatPicoUsd,
  picoUsdToUsd,
  usdPerMTokToPicoPerToken,
  usdPerTokenToPicoPerToken,
} from '../../src/cost/money.js';

describe('money units', () => {
  it('converts published prices to exact integer pUSD per token', () => {
    expect(usdPerMTokToPicoPerToken(3.75)).toBe(3_750_000);
    expect(usdPerMTokToPicoPerToken(0.3)).toBe(300_000);
    expect(usdPerMTokToPicoPerToken(0.028)).toBe(28_000);
    expect(usdPerTokenToPicoPerToken(3e-6)).toBe(3_000_000);
    expect(usdPerTokenToPicoPerToken(1.25e-7)).toBe(125_000);
  });

  it('formats pico-dollars as exact trimmed decimals', () => {
    expect(formatPicoUsd(0n)).toBe('0');
    expect(formatPicoUsd(13_875_000_000n)).toBe('0.013875');
    expect(formatPicoUsd(-39_300_000_000n)).toBe('-0.0393');
    expect(formatPicoUsd(12_000_000_000_001n)).toBe('12.000000000001');
  });

  // Checked against a deliberate bug: padding the fraction to 11 digits instead of 12 fails at once.
  it('DuckDB DECIMAL(38,12) cells and formatPicoUsd agree on every amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (picoUsd) => {
        expect(csvValue('cost_usd', { width: 38, scale: 12, value: picoUsd })).toBe(formatPicoUsd(picoUsd));
        expect(Number(formatPicoUsd(picoUsd))).toBeCloseTo(picoUsdToUsd(picoUsd), 6);
      }),
    );
  });
});
