/**
 * The zod schemas of the engine's parameters (`params.ts`), for a caller that validates parameters
 * it did not build (the library's `./engine` entry exports them). Apart from `params.ts` so that
 * a replay, which builds its parameters from scenarios, neither builds them nor loads zod.
 */
import { z } from 'zod';

const nonNegInt = z.number().int().nonnegative();

/** Which FreeCode generation to reproduce where they differ (§0): `newest` or the 08-22 `aug` commit. */
export const EngineVersionSchema = z.enum(['newest', 'aug']);
export type EngineVersion = z.infer<typeof EngineVersionSchema>;

/** `freecode`: §2.2's literal drop-from-front rule. `strict`: drops whole turns (§2.2 note). */
export const SelectorKindSchema = z.enum(['freecode', 'strict']);
export type SelectorKind = z.infer<typeof SelectorKindSchema>;

/** How tool results are shown to the provider (§5.6 and its "History"). */
export const PruningPolicySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('prefix-stable') }),
  z.object({ kind: z.literal('sliding-legacy'), keepRecentResponses: nonNegInt, capChars: nonNegInt }),
  z.object({ kind: z.literal('none') }),
]);
export type PruningPolicy = z.infer<typeof PruningPolicySchema>;

/**
 * The serializable engine configuration of a scenario. Only what some code reads: the §1.4 output
 * cap is the constant `OUTPUT_TOKEN_CAP` (`usableWindow`'s default), and the §1.7 spend limit is
 * an argument of `checkSpendBreaker` (no scenario varies either, and the replay never stops a
 * turn for spend: it prices the turns the log shows).
 */
export const EngineParamsSchema = z.object({
  version: EngineVersionSchema,
  selector: SelectorKindSchema,
  /** The cost ceiling (§1.1); a window-only scenario sets it at or above the window. */
  targetTokens: nonNegInt,
  bufferTokens: nonNegInt,
  /** `FREECODE_AUTO_COMPACT_TOKENS`; null = unset (§1.2 step 1). */
  autoCompactOverrideTokens: nonNegInt.nullable(),
  fallbackContextLimitTokens: nonNegInt,
  preserveRecentTurns: nonNegInt,
  maxPreserveRecentTokens: nonNegInt,
  /** Head carve-out cap (§2.2 step 5); newest only. */
  maxPreserveHeadTokens: nonNegInt,
  /** Tool transcript budget per turn (newest) or memory truncation (aug) (§2.1). */
  maxToolOutputChars: nonNegInt,
  /** Size of both holds (§4.4). */
  holdGrowthTokens: nonNegInt,
  maxOverflowCompactions: nonNegInt,
  toolResultBudgetChars: nonNegInt,
  pruning: PruningPolicySchema,
  /** The removed time-based microcompact (RC3, §5.7), to reproduce pre-2026-08-05 logs. */
  legacyMicrocompact: z.boolean(),
});
export type EngineParams = z.infer<typeof EngineParamsSchema>;
