/** The price table of a run: the bundled table, overlaid by `--pricing <file>` when given. */
import { loadBundledPriceTable } from './bundled-prices.js';
import type { PriceTable } from './price-table.js';
import { loadPricingFile } from './pricing-file.js';

export async function resolvePrices(pricingFile: string | null): Promise<PriceTable> {
  const bundled = loadBundledPriceTable();
  if (pricingFile === null) return bundled;
  return (await loadPricingFile(pricingFile, bundled)).table;
}
