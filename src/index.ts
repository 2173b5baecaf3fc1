/**
 * Library entry: the normalized session model, ingest, the replay, the price table, and the use
 * cases the CLI runs (`billSessions`, `simulateSessions`, `flagSessions`, `tuneSessions`), which
 * take plain options and return the same reports the CLI prints. Importing this module loads
 * neither DuckDB nor vega (they load when a use case needs them). The engine is exported
 * separately as `cachecost/engine`.
 */
export * from './session/model.js';
export { CachecostError, type CachecostErrorCode } from './session/errors.js';
export { summarizeSession, type SessionSummary } from './session/summary.js';
export {
  discoverSessions,
  loadSession,
  newIngestRun,
  type IngestOptions,
  type IngestRun,
  type SessionSource,
} from './ingest/index.js';
export {
  buildScenarios,
  familyDefaults,
  type Scenario,
  type ScenarioFamily,
  type ScenarioOverrides,
} from './simulate/scenario.js';
export { simulateSession, type SessionSimulation } from './simulate/simulate-session.js';
export {
  replaySession,
  repriceReplay,
  type ReplayInput,
  type ReplayResult,
  type ReplayRow,
} from './simulate/replay.js';
export { modelFactsFor } from './simulate/model-facts.js';
export { loadBundledPriceTable, loadPricingFile, priceRow, type PriceTable } from './cost/index.js';
export { forEachSession } from './usecases/for-each-session.js';
export { resolvePrices } from './usecases/prices.js';
export { replayWithPrices, type ReplayedSession } from './usecases/replay-session.js';
export type { Progress } from './usecases/progress.js';
export { billSessions, billExports, type BillOptions, type BillExportsOptions } from './usecases/bill.js';
export { exportSessions, type ExportOptions, type ExportOutcome } from './usecases/export.js';
export type { RunStamp, RecordTo } from './usecases/run-info.js';
export {
  simulateSessions,
  simulateExports,
  type SimulateSessionsOptions,
  type SimulateSessionsOutcome,
  type SimulateExportsOptions,
} from './usecases/simulate.js';
export {
  flagSessions,
  flagExports,
  flagScenarios,
  type FlagSessionsOptions,
  type FlagSessionsOutcome,
} from './usecases/flags.js';
export { tuneSessions, type TuneSessionsOptions } from './usecases/tune.js';
export { DEFAULT_THRESHOLDS, type FlagThresholds } from './detect/thresholds.js';
export { resolveThresholds } from './detect/thresholds-schema.js';
export type { Flag } from './detect/flag.js';
export type { SweepGrid } from './tune/grid.js';
export type { TuneOutcome } from './tune/run-tune.js';
export type { BillReport } from './report/bill-json.js';
export type { FlagsReport } from './report/flags-report.js';
export type { SimulateReport } from './report/simulate-report.js';
