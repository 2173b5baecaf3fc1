/**
 * The schema of the detectors' thresholds (`thresholds.ts`) and the layering of a config file and
 * `--threshold` options over the defaults. Apart from `thresholds.ts` so that a run that flags with
 * the defaults (`simulate`, `export`) neither builds it nor loads zod.
 */
import { z } from 'zod';
import { DEFAULT_THRESHOLDS } from './thresholds.js';

const positiveInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();
const nonNegUsd = z.number().nonnegative();

export const FlagThresholdsSchema = z
  .object({
    /** The cost ceiling a context is held to (FreeCode's `DEFAULT_COMPACT_TARGET_TOKENS`, engine.md §1.1); a scenario with its own target is held to that one. */
    targetTokens: positiveInt,
    /** Runaway cost: spend at least this multiple of the same session under the default target. */
    runawayCostRatio: z.number().min(1),
    /** Runaway cost is critical from this multiple on. */
    runawayCriticalRatio: z.number().min(1),
    /** A cost flag (runaway cost, never compacted, cache bust, TTL mismatch) is raised only with at least this many USD at stake; failure flags are raised whatever they cost. */
    minUsdAtStake: nonNegUsd,
    /** Never compacted: at least this many consecutive requests above the target with no compaction attempt. */
    neverCompactedMinRequests: positiveInt,
    /** A context at least this multiple of the target makes never-compacted and blocked-hook storms critical. */
    criticalContextMultiple: z.number().min(1),
    /** Non-converging overflow: at least this many rejected sends in one user turn (overflow → compact → overflow again). */
    overflowMinRejections: positiveInt,
    /** Compaction storm: at least this many consecutive compactions that each free less than `stormMinProgressPct`. */
    stormMinCompactions: positiveInt,
    /** A compaction that frees less than this percentage of the prompt makes "little progress". */
    stormMinProgressPct: z.number().min(0).max(100),
    /** A storm of at least this many compactions is critical (the "50+ consecutive failures" case). */
    stormCriticalCompactions: positiveInt,
    /** Blocked-hook storm: at least this many consecutive PreCompact blocks with no compaction between. */
    hookStormMinBlocks: positiveInt,
    /** Growth FreeCode waits for before retrying a blocked compaction (`BLOCKED_RETRY_GROWTH_TOKENS`, engine.md §4.4). */
    holdGrowthTokens: nonNegInt,
    /** Cache bust: a read at least this many tokens below what the previous request left in cache (FreeCode's own miss detector, engine.md §9.3). */
    cacheBustMinMissTokens: positiveInt,
    /** Cache bust: at least this many unexplained collapses in a session. */
    cacheBustMinRequests: positiveInt,
    /** Cache bust is critical when the collapses cost at least this share of the session's spend (reads frozen, RC4/RC8). */
    cacheBustCriticalCostShare: z.number().min(0).max(1),
    /** Estimate divergence: the provider's count at least this multiple of FreeCode's estimate (14.5K vs 196K is 13.5×). */
    estimateDivergenceRatio: z.number().min(1),
    /** Estimate divergence: only where the provider counted at least this many tokens (below, the ~12K static block the estimate never counts dominates). */
    estimateDivergenceMinTokens: nonNegInt,
    /** TTL mismatch: at least this many idle gaps where the other TTL changes what is read. */
    ttlMinGaps: positiveInt,
  })
  .strict();
export type FlagThresholds = z.infer<typeof FlagThresholdsSchema>;

/** The names a config file or `--threshold` may set. */
// `Object.keys` types its result as string[]; the schema's shape has exactly the threshold names.
export const THRESHOLD_NAMES = Object.keys(FlagThresholdsSchema.shape) as readonly (keyof FlagThresholds)[];

export type ThresholdsResult =
  { readonly ok: true; readonly thresholds: FlagThresholds } | { readonly ok: false; readonly error: string };

/**
 * Layers partial overrides over the defaults, in order (later wins), and validates the result;
 * an unknown name or a bad value is an error naming it, never a silent default.
 */
export function resolveThresholds(layers: readonly unknown[]): ThresholdsResult {
  let merged: Record<string, unknown> = { ...DEFAULT_THRESHOLDS };
  for (const layer of layers) {
    const partial = FlagThresholdsSchema.partial().safeParse(layer);
    if (!partial.success) return { ok: false, error: describeIssues(partial.error) };
    merged = { ...merged, ...partial.data };
  }
  const parsed = FlagThresholdsSchema.safeParse(merged);
  return parsed.success ? { ok: true, thresholds: parsed.data } : { ok: false, error: describeIssues(parsed.error) };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown threshold ${issue.keys.map((key) => `"${key}"`).join(', ')} (known: ${THRESHOLD_NAMES.join(', ')})`;
      const path = issue.path.join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
