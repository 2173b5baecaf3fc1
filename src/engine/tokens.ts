/**
 * Token accounting (engine.md §1): FreeCode's chars/4 estimate, its window constants, the
 * usable-window rule and the compaction trigger.
 */

/** FreeCode's estimator divisor: 4 UTF-16 code units per token (§1.1). */
export const CHARS_PER_TOKEN = 4;

/** Context window, in tokens, used when no models.dev limit is known (§1.1). */
export const FALLBACK_CONTEXT_LIMIT = 100_000;

/** The cost ceiling, in tokens, that caps the window for the trigger (§1.1). */
export const DEFAULT_COMPACT_TARGET_TOKENS = 120_000;

/** `DEFAULT_COMPACTION_CONFIG.autoCompactBufferTokens`: subtracted from the limit (§1.3). */
export const DEFAULT_AUTO_COMPACT_BUFFER_TOKENS = 13_000;

/** Largest output reservation, in tokens, taken off the window (`providers/utils.ts`, §1.4). */
export const OUTPUT_TOKEN_CAP = 32_000;

/** FreeCode's estimate: 0 for an empty string, else ceil(UTF-16 length / 4) (§1.1). */
export function estimateTokenCount(text: string): number {
  if (text.length === 0) return 0;
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * The window, in tokens, the loop hands to the trigger (§1.4): the context limit minus
 * min(output limit || cap, cap); the full limit when that would not be positive; undefined when
 * no positive limit is known (the trigger then uses its fallback).
 */
export function usableWindow(
  contextLimitTokens: number | undefined,
  outputLimitTokens: number | undefined,
  outputTokenCap: number = OUTPUT_TOKEN_CAP,
): number | undefined {
  if (contextLimitTokens === undefined || !(contextLimitTokens > 0)) return undefined;
  // `||` on purpose: FreeCode treats an output limit of 0 as unknown (§1.4).
  const reservedTokens = Math.min(outputLimitTokens || outputTokenCap, outputTokenCap);
  const usableTokens = contextLimitTokens - reservedTokens;
  return usableTokens > 0 ? usableTokens : contextLimitTokens;
}

/** The parameters the trigger reads (a subset of `EngineParams`). */
export interface TriggerParams {
  readonly targetTokens: number;
  readonly bufferTokens: number;
  /** `FREECODE_AUTO_COMPACT_TOKENS`: when set, the trigger is exactly this count (§1.2 step 1). */
  readonly autoCompactOverrideTokens: number | null;
  readonly fallbackContextLimitTokens: number;
}

/**
 * The token count at or above which the trigger fires (§1.2): the override when set, else
 * max(0, min(window, target) − buffer) with the fallback window when none is given.
 */
export function compactThresholdTokens(contextLimitTokens: number | undefined, params: TriggerParams): number {
  if (params.autoCompactOverrideTokens !== null) return params.autoCompactOverrideTokens;
  const windowTokens =
    contextLimitTokens !== undefined && contextLimitTokens > 0 ? contextLimitTokens : params.fallbackContextLimitTokens;
  const limitTokens = Math.min(windowTokens, params.targetTokens);
  return Math.max(0, limitTokens - params.bufferTokens);
}

/** FreeCode's pure `shouldCompact` (§1.2): whether `tokenCount` reaches the threshold. */
export function shouldCompact(
  tokenCount: number,
  contextLimitTokens: number | undefined,
  params: TriggerParams,
): boolean {
  return tokenCount >= compactThresholdTokens(contextLimitTokens, params);
}
