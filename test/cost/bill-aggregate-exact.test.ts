/**
 * The TypeScript bill's costs are exact past 2^53 pico-dollars (~$9,007): `settle` multiplies a
 * group's summed tokens by their rates as numbers only where the product is a safe integer, and as
 * BigInts otherwise. Groups here hold up to a few hundred requests of up to 100,000,000 tokens per
 * class (the most a request may carry), so most products are far past 2^53; every cost column
 * must equal the sum, in BigInt, of each request's tokens × its rate (the model's rates made odd,
 * so that products past 2^53 are not exact as numbers). Checked against a deliberate
 * bug: the product taken as a number whatever its size (`BigInt(rate * tokens)`).
 *
 * A line's USD numbers (`usdOfPico`, numbers below 2^52 pico-dollars) are `picoUsdToUsd`'s to the
 * last bit, on both sides of every dollar and of zero. Checked against deliberate bugs: the whole
 * dollars rounded down instead of toward zero (`Math.floor`), and the number path taken up to
 * 2^62, where the amount no longer converts exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BillRequest, BillAggregator, usdOfPico } from '../../src/cost/bill-aggregate.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { PICO_USD_PER_USD, picoUsdToUsd } from '../../src/cost/money.js';
import { type PriceTable, priceAt } from '../../src/cost/price-table.js';
import { billWindow } from '../../src/usecases/bill-window.js';

const bundled = loadBundledPriceTable();
// No long-context tier: every request is priced at the base rates, whatever its prompt.
const MODEL = 'claude-opus-4-1';
// Its rates made odd (published rates are whole micro-dollars per MTok, so their products keep
// trailing zero bits and often stay exact as numbers past 2^53; these do not).
const ODD_RATES = {
  input: 9_999_991,
  output: 74_999_989,
  cacheRead: 999_983,
  cacheWrite5m: 12_345_679,
  cacheWrite1h: 19_999_999,
};
const prices: PriceTable = (() => {
  const only = priceAt(bundled, MODEL, null);
  if (only === null) throw new Error(`no price for ${MODEL}`);
  const odd = { ...only, ratesPicoUsdPerToken: { ...only.ratesPicoUsdPerToken, ...ODD_RATES } };
  return { ...bundled, windowsById: new Map([...bundled.windowsById, [MODEL, [odd]]]) };
})();
const tokens = fc.oneof(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 99_000_000, max: 100_000_000 }));
const requestArb = fc.record({ uncached: tokens, read: tokens, w5m: tokens, w1h: tokens, output: tokens });

describe('the TypeScript bill past 2^53 pico-dollars', () => {
  it('prices every column exactly', () => {
    const price = priceAt(prices, MODEL, null);
    expect(price).not.toBeNull();
    expect(price?.longContext ?? null).toBeNull();
    if (price === null) return;
    const rates = price.ratesPicoUsdPerToken;
    const rate = (value: number | null): bigint => BigInt(value ?? Number.NaN);
    fc.assert(
      fc.property(fc.array(requestArb, { minLength: 1, maxLength: 300 }), (specs) => {
        const aggregator = new BillAggregator(prices, {
          by: 'session',
          window: billWindow(undefined, undefined, 'UTC'),
          timeZone: 'UTC',
          breakdown: false,
        });
        const expected = { input: 0n, read: 0n, write5m: 0n, write1h: 0n, output: 0n };
        for (const { uncached, read, w5m, w1h, output } of specs) {
          const request: BillRequest = {
            sessionId: 's1',
            project: null,
            host: null,
            model: MODEL,
            timestampMs: null,
            subagent: false,
            promptTokens: uncached + read + w5m + w1h,
            uncachedInputTokens: uncached,
            cacheReadTokens: read,
            cacheWrite5mTokens: w5m,
            cacheWrite1hTokens: w1h,
            outputTokens: output,
            unknownTtlTokens: 0,
          };
          aggregator.add(request);
          expected.input += BigInt(uncached) * rate(rates.input);
          expected.read += BigInt(read) * rate(rates.cacheRead);
          expected.write5m += BigInt(w5m) * rate(rates.cacheWrite5m);
          expected.write1h += BigInt(w1h) * rate(rates.cacheWrite1h);
          expected.output += BigInt(output) * rate(rates.output);
        }
        const line = aggregator.table().total;
        expect(line.inputCost?.picoUsd).toBe(expected.input);
        expect(line.cacheReadCost?.picoUsd).toBe(expected.read);
        expect(line.cacheWrite5mCost?.picoUsd).toBe(expected.write5m);
        expect(line.cacheWrite1hCost?.picoUsd).toBe(expected.write1h);
        expect(line.outputCost?.picoUsd).toBe(expected.output);
        expect(line.cost?.picoUsd).toBe(
          expected.input + expected.read + expected.write5m + expected.write1h + expected.output,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('gives the USD number of picoUsdToUsd', () => {
    const nearDollar = fc
      .record({ dollars: fc.bigInt({ min: -4_600n, max: 4_600n }), off: fc.bigInt({ min: -3n, max: 3n }) })
      .map(({ dollars, off }) => dollars * PICO_USD_PER_USD + off);
    const amount = fc.oneof(
      nearDollar,
      fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.bigInt({ min: 2n ** 52n, max: 2n ** 62n }).map((magnitude) => -magnitude),
      fc.bigInt({ min: 2n ** 52n, max: 2n ** 62n }),
      fc.bigInt({ min: -1_000_000n, max: 1_000_000n }),
    );
    fc.assert(
      fc.property(amount, (picoUsd) => {
        expect(Object.is(usdOfPico(picoUsd), picoUsdToUsd(picoUsd))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});
