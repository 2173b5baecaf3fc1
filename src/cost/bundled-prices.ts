/**
 * The bundled, dated price table (`prices.json`, shipped with the package). It is project data:
 * a schema or consistency failure here is a broken invariant, not user input.
 */
import bundled from './prices.json' with { type: 'json' };
import { CachecostPriceFileSchema, cachecostEntryToDraft } from './cachecost-price-file.js';
import { buildPriceTable, normalizePrice } from './price-table.js';
import type { PriceTable } from './price-table.js';

/** The date the bundled table was compiled (YYYY-MM-DD). */
export const BUNDLED_PRICES_DATE: string = bundled.date;

let cached: PriceTable | null = null;

/** The bundled price table, parsed and validated once per process. */
export function loadBundledPriceTable(): PriceTable {
  if (cached !== null) return cached;
  const file = CachecostPriceFileSchema.parse(bundled);
  const result = buildPriceTable(file.models.map((entry) => normalizePrice(cachecostEntryToDraft(entry, 'bundled'))));
  if (result.kind === 'invalid') throw new Error(`bundled prices.json is inconsistent: ${result.reason}`);
  cached = result.table;
  return cached;
}
