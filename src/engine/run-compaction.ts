/**
 * The loop's `runCompaction` (engine.md §5.3): apply a compaction and return its consequences as
 * data for the caller to enact (invalidation record, cache generation bump, `compact.occurred`,
 * measured-count reset, history reload).
 */
import type { ApplyCompactionOptions, ApplyCompactionResult, StoredMessageLike } from './apply-compaction.js';
import { NOTHING_TO_COMPACT, applyCompaction } from './apply-compaction.js';

export type CompactionTrigger = 'auto' | 'manual';

export interface CompactionEffects {
  /** `recordInvalidation(sessionId, "compaction", detail)`: explains the next cache miss. */
  readonly invalidation: { readonly source: 'compaction'; readonly detail: string };
  /** `bumpCacheGeneration(sessionId)`: the miss detector starts a new baseline. */
  readonly cacheGenerationBump: true;
  /** The rollout event, in memory-estimate tokens (§6.6). */
  readonly compactOccurred: { readonly beforeTokens: number; readonly afterTokens: number };
  /** `lastMeasuredContextTokens = 0`: the measurement described the pre-trim request. */
  readonly resetMeasuredTokens: true;
  /** `loadHistory()`: the in-run history now equals the trimmed store. */
  readonly reloadHistory: true;
}

export type RunCompactionOutcome =
  | {
      readonly kind: 'compacted';
      readonly result: ApplyCompactionResult & { readonly compacted: true };
      readonly effects: CompactionEffects;
    }
  | {
      readonly kind: 'not-compacted';
      readonly result: ApplyCompactionResult & { readonly compacted: false };
      /** FreeCode logs "nothing to compact" at debug level, anything else (a block) as a warning. */
      readonly logLevel: 'debug' | 'warn';
    };

/** The invalidation detail: `<trigger> compaction: <before> → <after> tokens` (§9.3). */
export function compactionInvalidationDetail(
  trigger: CompactionTrigger,
  beforeTokens: number,
  afterTokens: number,
): string {
  return `${trigger} compaction: ${beforeTokens} \u2192 ${afterTokens} tokens`;
}

/**
 * The store-backed path of `runCompaction` (§5.3 step 3–4). The manual `/compact` IPC path does
 * not come here in FreeCode (no event, no invalidation, no bump); call `applyCompaction` for it.
 */
export function runCompaction<M extends StoredMessageLike>(
  options: ApplyCompactionOptions<M> & { readonly trigger: CompactionTrigger },
): RunCompactionOutcome {
  const result = applyCompaction(options);
  if (!result.compacted) {
    return { kind: 'not-compacted', result, logLevel: result.reason === NOTHING_TO_COMPACT ? 'debug' : 'warn' };
  }
  return {
    kind: 'compacted',
    result,
    effects: {
      invalidation: {
        source: 'compaction',
        detail: compactionInvalidationDetail(options.trigger, result.tokensBefore, result.tokensAfter),
      },
      cacheGenerationBump: true,
      compactOccurred: { beforeTokens: result.tokensBefore, afterTokens: result.tokensAfter },
      resetMeasuredTokens: true,
      reloadHistory: true,
    },
  };
}
