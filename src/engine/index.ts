/**
 * `cachecost/engine`: a pure, synchronous TypeScript implementation of FreeCode's pruning and
 * compaction engine (engine.md §1–§5). See README.md in this folder for the map.
 */
export {
  CHARS_PER_TOKEN,
  DEFAULT_AUTO_COMPACT_BUFFER_TOKENS,
  DEFAULT_COMPACT_TARGET_TOKENS,
  FALLBACK_CONTEXT_LIMIT,
  OUTPUT_TOKEN_CAP,
  compactThresholdTokens,
  estimateTokenCount,
  shouldCompact,
  usableWindow,
  type TriggerParams,
} from './tokens.js';
export {
  parseToolResultBudgetChars,
  parseTokenOverride,
  resolveCompactTarget,
  type ParsedOverride,
} from './token-override.js';
export {
  AUG_ENGINE_PARAMS,
  AUG_MAX_TOOL_OUTPUT_CHARS,
  BLOCKED_RETRY_GROWTH_TOKENS,
  DEFAULT_ENGINE_PARAMS,
  DEFAULT_MAX_PRESERVE_HEAD_TOKENS,
  DEFAULT_MAX_PRESERVE_RECENT_TOKENS,
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  DEFAULT_PRESERVE_RECENT_TURNS,
  MAX_OVERFLOW_COMPACTIONS,
  SLIDING_LEGACY_CAP_CHARS,
  SLIDING_LEGACY_KEEP_RECENT_RESPONSES,
  TOOL_RESULT_BUDGET_CHARS,
  engineParams,
  pruneStateResetsEachUserMessage,
  type EngineParams,
  type EngineVersion,
  type PruningPolicy,
  type SelectorKind,
} from './params.js';
export { EngineParamsSchema, EngineVersionSchema, PruningPolicySchema, SelectorKindSchema } from './params-schema.js';
export { checkSpendBreaker, type SpendCheck } from './spend-breaker.js';
export {
  CompactionSummarySchema,
  MemoryMessageSchema,
  MemoryRoleSchema,
  MemoryStateSchema,
  parseMemoryState,
} from './memory-state-schema.js';
export {
  freshMemoryState,
  type CompactionSummary,
  type MemoryMessage,
  type MemoryRole,
  type MemoryState,
} from './memory-state.js';
export { InMemoryMemoryStore, NULL_MEMORY_STORE, type MemoryStore } from './memory-store.js';
export { selectForCompaction, type SelectableMessage, type SelectionResult, type SelectorParams } from './selector.js';
export { keepLastNUserTurns } from './keep-last-turns.js';
export { classifyWorkStatus, type WorkStatus } from './work-status.js';
export {
  HEURISTIC_SUMMARY_LIMITS,
  heuristicSummaryContent,
  makeSummary,
  summarizeMessages,
  type SummarizableMessage,
  type SummarizeInput,
  type SummaryMemo,
} from './summarizer.js';
export {
  TOOL_TRANSCRIPT_LIMITS,
  renderToolTranscript,
  renderTurnForMemory,
  memoizedTurnForMemory,
  type ToolActivity,
  type TurnMemo,
  type ToolLineMemo,
} from './tool-transcript.js';
export {
  LLM_SUMMARY_MAX_TOKENS,
  LLM_SUMMARY_SECTIONS,
  LLM_SUMMARY_SYSTEM_PROMPT,
  acceptLlmSummary,
  buildLlmSummaryRequest,
  executeLlmSummary,
  type LlmSummarize,
  type LlmSummarizer,
  type LlmSummaryOutcome,
  type LlmSummaryRequest,
  type SummaryProvider,
} from './llm-summary.js';
export {
  NO_COMPACTION_HOOKS,
  type CompactionHooks,
  type HookContext,
  type PreCompactDecision,
} from './compaction-hooks.js';
export type { CompactionResult, SummarizerUsed } from './compaction-result.js';
export {
  MemoryService,
  type CompactAsyncOptions,
  type CompactOptions,
  type CompactionCheck,
  type MemoryHolds,
  type MemoryServiceOptions,
} from './memory-service.js';
export { ArraySessionStore, type SessionStore } from './session-store.js';
export {
  BLOCKED_WITHOUT_REASON,
  NOTHING_TO_COMPACT,
  applyCompaction,
  carryCodemodeStore,
  type ApplyCompactionOptions,
  type ApplyCompactionResult,
  type Compactor,
  type StoredMessageLike,
} from './apply-compaction.js';
export {
  compactionInvalidationDetail,
  runCompaction,
  type CompactionEffects,
  type CompactionTrigger,
  type RunCompactionOutcome,
} from './run-compaction.js';
export { CONTEXT_OVERFLOW_PATTERNS, getErrorStatus, isContextOverflowError } from './overflow.js';
export {
  OVERFLOW_NOTICE,
  OverflowRecovery,
  runTurnSends,
  type ContextOverflowEvent,
  type OverflowCompaction,
  type OverflowRecoveryOptions,
  type SendAttempt,
  type SendFailureDecision,
  type SendRecord,
  type TurnSendOutcome,
} from './overflow-recovery.js';
export {
  derivedToolCallId,
  isToolResultPart,
  type HistoryMessage,
  type HistoryPart,
  type HistoryPartBase,
  type ImagePart,
  type TextPart,
  type HistoryRole,
  type ToolResultPart,
} from './history-message.js';
export type { PruneOutcome, PruneStats, ReplacedToolResult } from './prune-outcome.js';
export {
  PruneState,
  prunedToolResultText,
  selectFreshToReplace,
  type PruneCandidate,
  type PrunePartition,
} from './prune-state.js';
export { pruneHistoryToolResults } from './prune-tool-results.js';
export { SLIDING_TRUNCATION_MARKER, slidingLegacyTruncate, slidingShownMessage } from './sliding-prune.js';
export type { SlidingMemo } from './sliding-prune.js';
export {
  MICROCOMPACT_CLEARED_TEXT,
  MICROCOMPACT_IDLE_MS,
  MICROCOMPACT_MIN_RESULT_CHARS,
  applyMicrocompact,
  microcompactShownMessage,
  timeBasedMicrocompact,
  type MicrocompactDecision,
} from './microcompact.js';
export { LegacyHistoryView } from './legacy-view.js';
export { applyPruningPolicy, newPruneMemo } from './pruning-policy.js';
export type { PruneMemo } from './pruning-policy.js';
