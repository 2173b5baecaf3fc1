/**
 * Every constant of FreeCode's engine as a parameter (engine.md §1–§5), with FreeCode's values as
 * defaults, so that scenarios can vary what FreeCode itself hard-codes (e.g. the 5,000-token hold).
 */
import type { EngineParams, EngineVersion } from './params-schema.js';
import { DEFAULT_AUTO_COMPACT_BUFFER_TOKENS, DEFAULT_COMPACT_TARGET_TOKENS, FALLBACK_CONTEXT_LIMIT } from './tokens.js';

export type { EngineParams, EngineVersion, PruningPolicy, SelectorKind } from './params-schema.js';

/** `BLOCKED_RETRY_GROWTH_TOKENS` (§4.4): growth needed before a held trigger may fire again. */
export const BLOCKED_RETRY_GROWTH_TOKENS = 5_000;
/** `MAX_OVERFLOW_COMPACTIONS` (§5.4): overflow compactions allowed per turn. */
export const MAX_OVERFLOW_COMPACTIONS = 3;
/** `TOOL_RESULT_BUDGET_CHARS` (§5.6): history-wide budget for tool results, in characters. */
export const TOOL_RESULT_BUDGET_CHARS = 200_000;
/** `DEFAULT_COMPACTION_CONFIG.preserveRecentTurns` (§2.1). */
export const DEFAULT_PRESERVE_RECENT_TURNS = 2;
/** `DEFAULT_COMPACTION_CONFIG.maxPreserveRecentTokens` (§2.1). */
export const DEFAULT_MAX_PRESERVE_RECENT_TOKENS = 8_000;
/** `DEFAULT_COMPACTION_CONFIG.maxPreserveHeadTokens` (§2.1, newest). */
export const DEFAULT_MAX_PRESERVE_HEAD_TOKENS = 2_000;
/** `maxToolOutputChars`, newest: the per-turn tool-transcript budget (§2.1, §3.5). */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 4_000;
/** `maxToolOutputChars`, Aug version: the per-message memory truncation (§2.1, §4.3). */
export const AUG_MAX_TOOL_OUTPUT_CHARS = 2_000;
/** The old sliding pruner (RC4, §5.6 "History"): responses kept whole, and the cap on older results. */
export const SLIDING_LEGACY_KEEP_RECENT_RESPONSES = 2;
export const SLIDING_LEGACY_CAP_CHARS = 1_000;

/** FreeCode's newest behaviour with every default. */
export const DEFAULT_ENGINE_PARAMS: Readonly<EngineParams> = Object.freeze({
  version: 'newest',
  selector: 'freecode',
  targetTokens: DEFAULT_COMPACT_TARGET_TOKENS,
  bufferTokens: DEFAULT_AUTO_COMPACT_BUFFER_TOKENS,
  autoCompactOverrideTokens: null,
  fallbackContextLimitTokens: FALLBACK_CONTEXT_LIMIT,
  preserveRecentTurns: DEFAULT_PRESERVE_RECENT_TURNS,
  maxPreserveRecentTokens: DEFAULT_MAX_PRESERVE_RECENT_TOKENS,
  maxPreserveHeadTokens: DEFAULT_MAX_PRESERVE_HEAD_TOKENS,
  maxToolOutputChars: DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  holdGrowthTokens: BLOCKED_RETRY_GROWTH_TOKENS,
  maxOverflowCompactions: MAX_OVERFLOW_COMPACTIONS,
  toolResultBudgetChars: TOOL_RESULT_BUDGET_CHARS,
  pruning: Object.freeze({ kind: 'prefix-stable' }),
  legacyMicrocompact: false,
});

/** The 2026-08-22 ("Aug") version: no head carve-out, no headless fallbacks, no post-compaction hold. */
export const AUG_ENGINE_PARAMS: Readonly<EngineParams> = Object.freeze({
  ...DEFAULT_ENGINE_PARAMS,
  version: 'aug',
  maxToolOutputChars: AUG_MAX_TOOL_OUTPUT_CHARS,
});

/** Builds parameters from FreeCode's defaults and a partial override (no validation: see the schema). */
export function engineParams(overrides: Partial<EngineParams> = {}): EngineParams {
  return { ...DEFAULT_ENGINE_PARAMS, ...overrides };
}

/**
 * Whether the prefix-stable decisions die at each user message: the Aug version reset its
 * `PruneState` in every `run()`; newest keeps it per session (§5.1).
 */
export function pruneStateResetsEachUserMessage(version: EngineVersion): boolean {
  switch (version) {
    case 'newest':
      return false;
    case 'aug':
      return true;
    default: {
      const unreachable: never = version;
      return unreachable;
    }
  }
}
