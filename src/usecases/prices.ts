/** The price table every use case prices with: the bundled one, overlaid by a price file when given. */
import type { PriceTable } from '../cost/price-table.js';
import { loadBundledPriceTable } from '../cost/bundled-prices.js';
import { loadPricingFile } from '../cost/pricing-file.js';

/** The bundled table, overlaid by `pricingFile` (a models.dev `api.json` or a LiteLLM map) when given. */
export async function resolvePrices(pricingFile: string | null | undefined): Promise<PriceTable> {
  const bundled = loadBundledPriceTable();
  if (pricingFile === null || pricingFile === undefined) return bundled;
  return (await loadPricingFile(pricingFile, bundled)).table;
}
