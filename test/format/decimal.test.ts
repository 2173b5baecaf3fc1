import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal, type SignDisplay } from '../../src/format/decimal.js';

/** What `formatDecimal` stands in for. */
function intl(value: number, fractionDigits: number, signDisplay: SignDisplay, currency: boolean): string {
  return new Intl.NumberFormat('en-US', {
    minimumFractionDigits: fractionDigits,
    maximumFractionDigits: fractionDigits,
    signDisplay,
    ...(currency ? { style: 'currency', currency: 'USD' } : {}),
  }).format(value);
}

const options = fc.record({
  fractionDigits: fc.integer({ min: 0, max: 6 }),
  signDisplay: fc.constantFrom<SignDisplay>('auto', 'negative', 'exceptZero'),
  currency: fc.boolean(),
});

/** Values with few decimals and exact halves of a last place, where rounding is decided. */
const decimalLike = fc
  .tuple(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 9 }), fc.boolean())
  .map(([n, places, half]) => (n + (half ? 0.5 : 0)) / 10 ** places);

const same = (value: number, o: { fractionDigits: number; signDisplay: SignDisplay; currency: boolean }): void => {
  const ours = formatDecimal(value, {
    fractionDigits: o.fractionDigits,
    signDisplay: o.signDisplay,
    ...(o.currency ? { prefix: '$' } : {}),
  });
  expect(ours, `${value} ${JSON.stringify(o)}`).toBe(intl(value, o.fractionDigits, o.signDisplay, o.currency));
};

describe('formatDecimal', () => {
  it('is Intl.NumberFormat en-US on any double', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), options, same), { numRuns: 5_000 });
  });

  it('is Intl.NumberFormat en-US on decimals and exact halves (rounding half away from zero, from the shortest digits)', () => {
    fc.assert(fc.property(decimalLike, options, same), { numRuns: 10_000 });
  });

  it('rounds from the shortest representation, groups thousands and signs as Intl does', () => {
    const cases: [number, number, SignDisplay, boolean, string][] = [
      [1.005, 2, 'negative', false, '1.01'],
      [2.5, 0, 'auto', false, '3'],
      [-0.4, 0, 'auto', false, '-0'],
      [-0.00001, 4, 'negative', true, '$0.0000'],
      [-1234.565, 2, 'negative', true, '-$1,234.57'],
      [999.95, 1, 'exceptZero', false, '+1,000.0'],
      [1e21, 0, 'auto', false, '1,000,000,000,000,000,000,000'],
      [Number.POSITIVE_INFINITY, 0, 'auto', false, '∞'],
    ];
    for (const [value, fractionDigits, signDisplay, currency, text] of cases) {
      expect(formatDecimal(value, { fractionDigits, signDisplay, ...(currency ? { prefix: '$' } : {}) })).toBe(text);
      expect(intl(value, fractionDigits, signDisplay, currency)).toBe(text);
    }
  });
});
