/**
 * The bundled price file is read without zod at run time (`cost/bundled-prices.ts`): this test is
 * where it meets the schema. Parsing must accept it and change nothing (no default filled in), so
 * the table built at run time is the one the schema describes.
 */
import { describe, expect, it } from 'vitest';
import { BUNDLED_PRICE_FILE, loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CachecostPriceFileSchema } from '../../src/cost/cachecost-price-file.js';

describe('bundled prices.json', () => {
  it('is a valid cachecost price file that the schema leaves unchanged', () => {
    expect(CachecostPriceFileSchema.parse(BUNDLED_PRICE_FILE)).toEqual(BUNDLED_PRICE_FILE);
    expect(loadBundledPriceTable().prices.length).toBeGreaterThan(0);
  });
});
