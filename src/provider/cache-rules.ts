/**
 * Provider prompt-cache rules as data (pricing.md §1, replay.md §5): one rule set per provider
 * family, plus per-model minimum cacheable prefixes. The cache model (`cache-model.ts`) reads only
 * these fields; adding a provider is adding a row here, not a branch there.
 */

/** Provider cache families the cache model knows. */
export const CACHE_FAMILIES = [
  'anthropic',
  'minimax-anthropic',
  'openai',
  'openai-5.6+',
  'deepseek',
  'gemini-implicit',
  'no-cache',
] as const;
export type CacheFamily = (typeof CACHE_FAMILIES)[number];

/**
 * Where a provider lets cache entries start:
 * - `anthropic-breakpoints`: entries are written only at the request's breakpoints (after the
 *   static block and after the last segment) and read only when an entry is exactly a prefix;
 * - `automatic-prefix`: every request leaves its whole prompt as an entry and any common prefix
 *   with an alive entry is read, in steps of `granularityTokens`.
 */
export type CacheBreakpointKind = 'anthropic-breakpoints' | 'automatic-prefix';

/** The TTL a caller asks for on breakpoint caches (FreeCode's `FREECODE_CACHE_TTL`, `--ttl`). */
export type CacheTtl = '5m' | '1h';

export type CacheRules = {
  readonly family: CacheFamily;
  readonly kind: CacheBreakpointKind;
  /** Entries (and prompts) shorter than this are never cached; both counters stay 0. */
  readonly minCacheableTokens: number;
  /** Reads are rounded down to a multiple of this (1 = token-exact). */
  readonly granularityTokens: number;
  /** Lifetime of an entry after its last write or hit at the default TTL. */
  readonly ttlMs: number;
  /** Lifetime when the caller asks for `1h`; null when the provider has no 1-hour cache (the marker is ignored: 5m). */
  readonly ttl1hMs: number | null;
  /** Whether the tokens after the read prefix are billed as cache writes (else as uncached input). */
  readonly writesBilled: boolean;
  /** Provider maximum of explicit breakpoints per request (FreeCode places at most 4, engine.md §5.8). */
  readonly maxBreakpoints: number;
  /**
   * Automatic caches only: the share of a read, beyond the prefix other sessions keep cached (the
   * static block), that the provider misses although the entry should be alive (a request routed
   * to a machine without it). Applied as an expectation so the replay stays deterministic; 0 =
   * every alive entry is read.
   */
  readonly transientMissRate: number;
  /**
   * Automatic caches only: a shorter lifetime the provider documents (`ttlMs` being the one
   * observed), tried when a session's log fits it better (its reads die after shorter gaps); null = none.
   */
  readonly documentedTtlMs: number | null;
  /** Whether a prefix shared with other sessions (the static block of a warm start) stays cached all session. */
  readonly sharedAcrossSessions: boolean;
  readonly source: string;
};

const FIVE_MINUTES_MS = 5 * 60 * 1000;
const ONE_HOUR_MS = 60 * 60 * 1000;

/**
 * OpenAI's automatic cache as Codex rollouts show it (measured on the 21 shared Codex rollouts,
 * gpt-5-codex … gpt-5.2-codex, 1,230 consecutive request pairs): a prefix is still read after
 * 74–98 minutes of inactivity and never after 130 minutes or more, while OpenAI documents 5–10
 * minutes "up to one hour"; the reads then fall to the system prompt, which other sessions keep
 * cached. Within the lifetime, reads fall short of the alive prefix by this share of the tokens
 * beyond that system prompt (floors that recover on the next request, and partial reads): 2.3% of
 * the replayed reads, token-weighted over that sample. A session with enough reads of its own
 * replaces both (`simulate-session.ts`).
 */
const OPENAI_OBSERVED_TTL_MS = 2 * ONE_HOUR_MS;
const OPENAI_TRANSIENT_MISS_RATE = 0.023;

/** A minimum larger than any prompt: the family never caches. */
const NEVER_CACHED_TOKENS = Number.MAX_SAFE_INTEGER;

/**
 * A rules object: every `CacheRules` the program makes comes from here (the family rows below, a
 * model's own minimum, a session's measured automatic cache in the replay), so all of them have one
 * hidden class, their fields in one order, and the cache model's reads of them stay monomorphic.
 * The fields that hold fractions or huge numbers (`transientMissRate`, `minCacheableTokens`), or
 * numbers and null, are given those representations before the first rules object is made (see
 * `primeCacheRules`): a row made later can then never change a field's representation, which would
 * leave the objects made before it with a deprecated hidden class (a deopt where code meets them).
 */
export function cacheRules(fields: CacheRules): CacheRules {
  return {
    family: fields.family,
    kind: fields.kind,
    minCacheableTokens: fields.minCacheableTokens,
    granularityTokens: fields.granularityTokens,
    ttlMs: fields.ttlMs,
    ttl1hMs: fields.ttl1hMs,
    writesBilled: fields.writesBilled,
    maxBreakpoints: fields.maxBreakpoints,
    transientMissRate: fields.transientMissRate,
    documentedTtlMs: fields.documentedTtlMs,
    sharedAcrossSessions: fields.sharedAcrossSessions,
    source: fields.source,
  };
}

/** Two throwaway rules objects that give `cacheRules`' fields their widest representations first. */
function primeCacheRules(): void {
  const prime: CacheRules = {
    family: 'no-cache',
    kind: 'automatic-prefix',
    minCacheableTokens: 0.5,
    granularityTokens: 1,
    ttlMs: 0,
    ttl1hMs: null,
    writesBilled: false,
    maxBreakpoints: 0,
    transientMissRate: 0.5,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: '',
  };
  cacheRules(prime);
  cacheRules({ ...prime, ttl1hMs: 0.5, documentedTtlMs: 0.5 });
}
primeCacheRules();

/** Family defaults; `cacheRulesFor` applies the per-model minimum on top. */
export const CACHE_RULES: Readonly<Record<CacheFamily, CacheRules>> = {
  anthropic: cacheRules({
    family: 'anthropic',
    kind: 'anthropic-breakpoints',
    minCacheableTokens: 1024,
    granularityTokens: 1,
    ttlMs: FIVE_MINUTES_MS,
    ttl1hMs: ONE_HOUR_MS,
    writesBilled: true,
    maxBreakpoints: 4,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'pricing.md §1.1 (Anthropic prompt caching: 5m/1h, refresh on hit, 4 breakpoints)',
  }),
  'minimax-anthropic': cacheRules({
    family: 'minimax-anthropic',
    kind: 'anthropic-breakpoints',
    minCacheableTokens: 512,
    granularityTokens: 1,
    ttlMs: FIVE_MINUTES_MS,
    // pricing.md §1.5 gives no 1-hour cache for MiniMax: a `1h` marker is treated as 5m.
    ttl1hMs: null,
    writesBilled: true,
    maxBreakpoints: 4,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'pricing.md §1.5 (MiniMax Anthropic endpoint, 512-token minimum) and the project cache rules',
  }),
  openai: cacheRules({
    family: 'openai',
    kind: 'automatic-prefix',
    minCacheableTokens: 1024,
    granularityTokens: 128,
    ttlMs: OPENAI_OBSERVED_TTL_MS,
    ttl1hMs: null,
    writesBilled: false,
    maxBreakpoints: 0,
    transientMissRate: OPENAI_TRANSIENT_MISS_RATE,
    documentedTtlMs: FIVE_MINUTES_MS,
    sharedAcrossSessions: true,
    source:
      'pricing.md §1.2 (OpenAI before GPT-5.6: automatic, ≥1,024 tokens, 128-token steps, free writes); lifetime, ' +
      'transient misses and the shared system prompt as measured on Codex rollouts',
  }),
  'openai-5.6+': cacheRules({
    family: 'openai-5.6+',
    kind: 'anthropic-breakpoints',
    minCacheableTokens: 1024,
    // Assumption: explicit breakpoints read whole entries, so no 128-token rounding (pricing.md gives none).
    granularityTokens: 1,
    ttlMs: FIVE_MINUTES_MS,
    ttl1hMs: null,
    writesBilled: true,
    maxBreakpoints: 4,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'pricing.md §1.2 (GPT-5.6+: explicit breakpoints, writes 1.25x); granularity 1 and 5m TTL assumed',
  }),
  deepseek: cacheRules({
    family: 'deepseek',
    kind: 'automatic-prefix',
    minCacheableTokens: 64,
    granularityTokens: 64,
    ttlMs: ONE_HOUR_MS,
    ttl1hMs: null,
    writesBilled: false,
    maxBreakpoints: 0,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'pricing.md §1.4 and the project cache rules (disk cache, 64-token units, 1 h, misses at input price)',
  }),
  'gemini-implicit': cacheRules({
    family: 'gemini-implicit',
    kind: 'automatic-prefix',
    minCacheableTokens: 1024,
    // pricing.md §1.3 gives no step size for implicit hits: token-exact assumed.
    granularityTokens: 1,
    // "implicit: short" (pricing.md §1.6): 5 minutes assumed.
    ttlMs: FIVE_MINUTES_MS,
    ttl1hMs: null,
    writesBilled: false,
    maxBreakpoints: 0,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'pricing.md §1.3 (Gemini implicit caching, no storage fee); step 1 token and 5m TTL assumed',
  }),
  'no-cache': cacheRules({
    family: 'no-cache',
    kind: 'automatic-prefix',
    minCacheableTokens: NEVER_CACHED_TOKENS,
    granularityTokens: 1,
    ttlMs: 0,
    ttl1hMs: null,
    writesBilled: false,
    maxBreakpoints: 0,
    transientMissRate: 0,
    documentedTtlMs: null,
    sharedAcrossSessions: false,
    source: 'models without prompt caching (e.g. GPT-4, GPT-4 Turbo): every token is uncached input',
  }),
};

/** Per-model minimum cacheable prefix, keyed by canonical model id (pricing.md §1.1, §1.3). */
export const MIN_CACHEABLE_TOKENS_BY_MODEL: Readonly<Record<string, number>> = {
  // Anthropic (LiteLLM prompt-caching doc, 2026-10, quoted in pricing.md §1.1).
  'claude-opus-5': 512,
  'claude-fable-5': 512,
  'claude-mythos-5': 512,
  'claude-opus-4-8': 1024,
  'claude-sonnet-5': 1024,
  'claude-sonnet-4-6': 1024,
  'claude-sonnet-4-5': 1024,
  'claude-sonnet-4': 1024,
  'claude-opus-4-1': 1024,
  'claude-opus-4': 1024,
  'claude-3-7-sonnet': 1024,
  'claude-3-5-sonnet': 1024,
  'claude-3-opus': 1024,
  'claude-opus-4-7': 2048,
  'claude-3-haiku': 2048,
  'claude-3-5-haiku': 2048,
  'claude-opus-4-5': 4096,
  'claude-opus-4-6': 4096,
  'claude-haiku-4-5': 4096,
  // Gemini (ai.google.dev at crawl, pricing.md §1.3).
  'gemini-2.5-flash': 1024,
  'gemini-2.5-pro': 4096,
  'gemini-3-pro-preview': 4096,
  'gemini-3-flash-preview': 1024,
};

/** The rules for a model: its family's defaults with the model's own minimum when one is known. */
export function cacheRulesFor(family: CacheFamily, canonicalModelId: string | null): CacheRules {
  const base = CACHE_RULES[family];
  if (canonicalModelId === null || family === 'no-cache') return base;
  const minCacheableTokens = MIN_CACHEABLE_TOKENS_BY_MODEL[canonicalModelId];
  return minCacheableTokens === undefined ? base : cacheRules({ ...base, minCacheableTokens });
}

const OPENAI_VERSION = /^(?:[a-z0-9_-]+\/)?gpt-(\d+)(?:\.(\d+))?/i;

/**
 * The cache family of a provider name, for models the price table does not know (null when the
 * provider is unknown). OpenAI models from GPT-5.6 on use breakpoints and billed writes (pricing.md §1.2).
 */
export function cacheFamilyForProvider(provider: string, modelName: string): CacheFamily | null {
  switch (provider.toLowerCase()) {
    case 'anthropic':
      return 'anthropic';
    case 'minimax':
      return 'minimax-anthropic';
    case 'openai':
    case 'azure':
    case 'codex': {
      const match = OPENAI_VERSION.exec(modelName);
      if (match !== null) {
        const major = Number(match[1]);
        const minor = match[2] === undefined ? 0 : Number(match[2]);
        if (major > 5 || (major === 5 && minor >= 6)) return 'openai-5.6+';
      }
      return 'openai';
    }
    case 'deepseek':
      return 'deepseek';
    case 'google':
    case 'gemini':
    case 'vertex':
    case 'vertex_ai':
    case 'google-vertex':
      return 'gemini-implicit';
    default:
      return null;
  }
}
