/**
 * The bundled, dated price table (`prices.json`, shipped with the package). It is project data:
 * a schema or consistency failure here is a broken invariant, not user input. The schema is checked
 * by test/cost/bundled-prices.test.ts, not on every run: zod alone took longer to load than a
 * bill of a day's logs takes to compute.
 */
import bundled from './prices.json' with { type: 'json' };
import { cachecostEntryToDraft } from './cachecost-entry.js';
import type { CachecostPriceFile } from './cachecost-price-file.js';
import { buildPriceTable, normalizePrice } from './price-table.js';
import type { PriceTable } from './price-table.js';

/** The date the bundled table was compiled (YYYY-MM-DD). */
export const BUNDLED_PRICES_DATE: string = bundled.date;

let cached: PriceTable | null = null;

/** The bundled file as the schema reads it (the test holds `CachecostPriceFileSchema.parse` to leave it unchanged). */
export const BUNDLED_PRICE_FILE = bundled as unknown as CachecostPriceFile;

/** The bundled price table, built and checked for consistency once per process. */
export function loadBundledPriceTable(): PriceTable {
  if (cached !== null) return cached;
  const file = BUNDLED_PRICE_FILE;
  const result = buildPriceTable(file.models.map((entry) => normalizePrice(cachecostEntryToDraft(entry, 'bundled'))));
  if (result.kind === 'invalid') throw new Error(`bundled prices.json is inconsistent: ${result.reason}`);
  cached = result.table;
  return cached;
}
