/**
 * The cost layer's public API (README.md here): prices and their resolution, the TypeScript
 * pricing reference, the `--pricing` loaders, and the DuckDB tables and reports. Importing this
 * barrel does not load DuckDB; `CostDb.open` does.
 */
export { BUNDLED_PRICES_DATE, loadBundledPriceTable } from './bundled-prices.js';
export { CostDb, CSV_EXPORTS, readSqlFile } from './db.js';
export type { CostDbOptions, CsvExport, CsvExportName } from './db.js';
export type { CsvValue } from './duck-values.js';
export { modelFacts, modelIdOf, priceForModel, resolveCacheRules, resolveModelName } from './model-resolution.js';
export type { CacheRulesBasis, ModelResolution, ResolutionBasis } from './model-resolution.js';
export { bigintToSafeNumber, formatPicoUsd, picoUsdToUsd } from './money.js';
export { priceCounts, priceRequest, priceRow, priceUsage } from './price-request.js';
export type { BillableUsage, RequestCost, UsageToPrice } from './price-request.js';
export { buildPriceTable, normalizePrice, priceAt } from './price-table.js';
export type { ClassRates, LongContextTier, ModelPrice, PriceTable } from './price-table.js';
export { detectPricingFormat, loadPricingFile, overlayPricingJson } from './pricing-file.js';
export type { OverlayReport, PricingFileFormat, PricingOverlay } from './pricing-file.js';
export type {
  CompactionSummary,
  CostTotals,
  Fidelity,
  Money,
  Saving,
  ScenarioCost,
  ScenarioSaving,
  SessionCost,
  UnpricedModel,
} from './reports.js';
export {
  COMPACTION_COLUMNS,
  COMPACTION_TRIGGERS,
  MEASURED_SCENARIO,
  NONE_SCENARIO,
  RECORDED_SCENARIO,
  REQUEST_COLUMNS,
  REQUEST_KINDS,
  SCENARIO_COLUMNS,
  SESSION_COLUMNS,
} from './rows.js';
export type { CompactionRow, CompactionTrigger, RequestKind, RequestRow, ScenarioRow, SessionRow } from './rows.js';
