/**
 * Token sizes in generated data. A session's provider tokenizer is modelled as a fixed
 * characters-per-token ratio `cpt` (kept as hundredths so the arithmetic is exact): an item of
 * `chars` characters costs `ceil(chars / cpt)` tokens. FreeCode's own estimator is `ceil(chars / 4)`
 * (engine.md §1.1) and is used only where FreeCode uses it (the memory transcript).
 */

/** `ceil(chars / (cptHundredths / 100))` in integer arithmetic; 0 for an empty item. */
export function providerTokens(chars: number, cptHundredths: number): number {
  if (chars <= 0) return 0;
  return Math.floor((chars * 100 + cptHundredths - 1) / cptHundredths);
}

/** FreeCode's `estimateTokenCount` (§1.1): 0 for "", else `ceil(length / 4)`. */
export function estimateTokenCount(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}
