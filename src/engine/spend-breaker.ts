/** The per-run spend circuit breaker (engine.md §1.7). */

export type SpendCheck =
  | { readonly kind: 'within-budget' }
  | {
      readonly kind: 'exceeded';
      /** The run's status reason. */
      readonly statusReason: 'spend_budget_exceeded';
      readonly billedTokens: number;
      readonly limitTokens: number;
      /** FreeCode's completion message, verbatim. */
      readonly message: string;
    };

/**
 * Checked after each successful response with the run's running sums of `usage.inputTokens`
 * (inclusive) and `outputTokens`: the run stops when their sum is strictly greater than the
 * limit; a null limit (the default) never stops it.
 */
export function checkSpendBreaker(
  totalInputTokens: number,
  totalOutputTokens: number,
  maxTurnTokens: number | null,
): SpendCheck {
  const billedTokens = totalInputTokens + totalOutputTokens;
  if (maxTurnTokens === null || billedTokens <= maxTurnTokens) return { kind: 'within-budget' };
  return {
    kind: 'exceeded',
    statusReason: 'spend_budget_exceeded',
    billedTokens,
    limitTokens: maxTurnTokens,
    message: `Stopped: turn spend budget exceeded (${billedTokens} tokens billed, limit ${maxTurnTokens}). Set FREECODE_MAX_TURN_TOKENS to change.`,
  };
}
