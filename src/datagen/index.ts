/**
 * The deterministic FreeCode dataset generator: simulated sessions in FreeCode's exact on-disk
 * shapes (engine.md §4.2, §6, §7, §12), the committed scenarios of `datasets/freecode`, and a
 * large corpus for benchmarks. Everything is a function of a seed.
 */
export { writeDataset, MAX_ATTEMPTS, type DatasetSession } from './dataset.js';
export { generateCorpus, corpusPlan, type CorpusOptions, type CorpusSummary } from './corpus.js';
export {
  datasetScenarios,
  planForAttempt,
  DATASET_SEED,
  type DatasetScenario,
  type ScenarioExpectations,
} from './scenarios.js';
export { unmetExpectations } from './expectations.js';
export { simulateSession, triggerTokensFor, type SessionFiles, type SessionReport } from './simulator.js';
export { writeSession, removeSession, resetHome, BufferedFileWriter, type WrittenSession } from './home-writer.js';
export { CacheSimulator, type CacheRules, type CacheUsage, type Segment } from './cache-sim.js';
export type {
  SessionPlan,
  RunPlan,
  ModelProfile,
  Era,
  StoreUsageStyle,
  GrowthPlan,
  ResponseKind,
  PasteKind,
  PreCompactHook,
} from './session-plan.js';
export { CLAUDE_SONNET_4_5, DEEPSEEK_CHAT, GPT_5, MINIMAX_M3 } from './models.js';
export { Rng, hashSeed } from './rng.js';
