/** The price table every use case prices with: the bundled one, overlaid by a price file when given. */
import type { PriceTable } from '../cost/price-table.js';
import { loadBundledPriceTable } from '../cost/bundled-prices.js';

/** The bundled table, overlaid by `pricingFile` (a models.dev `api.json` or a LiteLLM map) when given. */
export async function resolvePrices(pricingFile: string | null | undefined): Promise<PriceTable> {
  const bundled = loadBundledPriceTable();
  if (pricingFile === null || pricingFile === undefined) return bundled;
  // Loaded only for a price file: its parsers load zod, which the bundled table does not need.
  const { loadPricingFile } = await import('../cost/pricing-file.js');
  return (await loadPricingFile(pricingFile, bundled)).table;
}
