/**
 * Library entry: the normalized session model, ingest, the replay and the price table. The
 * engine is exported separately as `cachecost/engine`.
 */
export * from './session/model.js';
export { CachecostError, type CachecostErrorCode } from './session/errors.js';
export { summarizeSession, type SessionSummary } from './session/summary.js';
export { discoverSessions, loadSession, type IngestOptions, type SessionSource } from './ingest/index.js';
export { buildScenarios, familyDefaults, type Scenario, type ScenarioFamily, type ScenarioOverrides } from './simulate/scenario.js';
export { simulateSession, type SessionSimulation } from './simulate/simulate-session.js';
export { replaySession, repriceReplay, type ReplayInput, type ReplayResult, type ReplayRow } from './simulate/replay.js';
export { modelFactsFor } from './simulate/model-facts.js';
export { loadBundledPriceTable, loadPricingFile, priceRow, type PriceTable } from './cost/index.js';
