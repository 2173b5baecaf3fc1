/**
 * Cache prices a price source left out, derived from the provider's rules (pricing.md §1, §2
 * recommendation 3) and marked as derived. A field that is explicitly null means "the provider
 * has no such price" and is never derived.
 */
import type { CacheFamily } from '../provider/cache-rules.js';

/** Rates of one request class, integer pUSD per token; null = the provider has no such price. */
export type ClassRates = {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number | null;
  readonly cacheWrite5m: number | null;
  readonly cacheWrite1h: number | null;
};

/** Rates as a source gives them: a cache field left undefined is to be derived. */
export type RatesDraft = {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number | null | undefined;
  readonly cacheWrite5m?: number | null | undefined;
  readonly cacheWrite1h?: number | null | undefined;
};

export type CacheRateField = 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h';
export const CACHE_RATE_FIELDS: readonly CacheRateField[] = ['cacheRead', 'cacheWrite5m', 'cacheWrite1h'];

/** Multipliers of the input price per family; null = not derivable (left null, so such tokens are unpriced). */
const DERIVATION: Readonly<Record<CacheFamily, Readonly<Record<CacheRateField, number | null>>>> = {
  // Anthropic: 5m write 1.25x, 1h write 2x, read 0.1x (pricing.md §1.1).
  anthropic: { cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: 2 },
  // MiniMax Anthropic endpoint: write 1.25x, read 0.1x; no 1-hour cache (pricing.md §1.5).
  'minimax-anthropic': { cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: null },
  // OpenAI before 5.6: writes are free; the read discount depends on the generation (0.1x–0.5x), so never guessed.
  openai: { cacheRead: null, cacheWrite5m: 0, cacheWrite1h: null },
  // GPT-5.6+: writes 1.25x (pricing.md §1.2).
  'openai-5.6+': { cacheRead: null, cacheWrite5m: 1.25, cacheWrite1h: null },
  // DeepSeek: a miss is billed at the input price, no write premium (pricing.md §1.4).
  deepseek: { cacheRead: null, cacheWrite5m: 1, cacheWrite1h: null },
  // Gemini implicit caching: no write or storage fee (pricing.md §1.3).
  'gemini-implicit': { cacheRead: null, cacheWrite5m: 0, cacheWrite1h: null },
  'no-cache': { cacheRead: null, cacheWrite5m: null, cacheWrite1h: null },
};

/** Completes the cache fields of `rates` from `family`'s rules; `derived` names the fields filled in. */
export function deriveCacheRates(
  family: CacheFamily,
  rates: RatesDraft,
): { readonly rates: ClassRates; readonly derived: readonly CacheRateField[] } {
  const derived: CacheRateField[] = [];
  const complete = (field: CacheRateField): number | null => {
    const given = rates[field];
    if (given !== undefined) return given;
    const multiplier = DERIVATION[family][field];
    if (multiplier === null) return null;
    derived.push(field);
    return Math.round(rates.input * multiplier);
  };
  return {
    rates: {
      input: rates.input,
      output: rates.output,
      cacheRead: complete('cacheRead'),
      cacheWrite5m: complete('cacheWrite5m'),
      cacheWrite1h: complete('cacheWrite1h'),
    },
    derived,
  };
}
