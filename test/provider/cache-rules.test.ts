import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CACHE_FAMILIES,
  CACHE_RULES,
  MIN_CACHEABLE_TOKENS_BY_MODEL,
  cacheRules,
  cacheRulesFor,
} from '../../src/provider/cache-rules.js';
import type { CacheRules } from '../../src/provider/cache-rules.js';

/** The fields in the order `cacheRules` writes them (one order: one hidden class for every rules object). */
const FIELD_ORDER = [
  'family',
  'kind',
  'minCacheableTokens',
  'granularityTokens',
  'ttlMs',
  'ttl1hMs',
  'writesBilled',
  'maxBreakpoints',
  'transientMissRate',
  'documentedTtlMs',
  'sharedAcrossSessions',
  'source',
];

const arbitraryRules: fc.Arbitrary<CacheRules> = fc.record({
  family: fc.constantFrom(...CACHE_FAMILIES),
  kind: fc.constantFrom('anthropic-breakpoints' as const, 'automatic-prefix' as const),
  minCacheableTokens: fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
  granularityTokens: fc.integer({ min: 1, max: 256 }),
  ttlMs: fc.nat(),
  ttl1hMs: fc.option(fc.nat()),
  writesBilled: fc.boolean(),
  maxBreakpoints: fc.nat({ max: 8 }),
  transientMissRate: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
  documentedTtlMs: fc.option(fc.nat()),
  sharedAcrossSessions: fc.boolean(),
  source: fc.string(),
});

describe('cacheRules (one shape for every rules object)', () => {
  it('gives back the rules it is given, their fields in one order', () => {
    fc.assert(
      fc.property(arbitraryRules, (rules) => {
        // Built in another order, so the order checked is the factory's own.
        const shuffled = Object.fromEntries(Object.entries(rules).reverse()) as CacheRules;
        const made = cacheRules(shuffled);
        expect(made).toStrictEqual({ ...rules });
        expect(Object.keys(made)).toEqual(FIELD_ORDER);
      }),
    );
  });

  it('makes every family row and every per-model row with that order', () => {
    for (const family of CACHE_FAMILIES) {
      expect(Object.keys(CACHE_RULES[family])).toEqual(FIELD_ORDER);
      expect(CACHE_RULES[family].family).toBe(family);
      for (const model of Object.keys(MIN_CACHEABLE_TOKENS_BY_MODEL)) {
        const rules = cacheRulesFor(family, model);
        expect(Object.keys(rules)).toEqual(FIELD_ORDER);
        const minCacheableTokens =
          family === 'no-cache'
            ? CACHE_RULES[family].minCacheableTokens
            : (MIN_CACHEABLE_TOKENS_BY_MODEL[model] ?? CACHE_RULES[family].minCacheableTokens);
        expect(rules).toStrictEqual({ ...CACHE_RULES[family], minCacheableTokens });
      }
    }
  });

  it('keeps the family rows as they were written', () => {
    expect(CACHE_RULES.openai).toStrictEqual({
      family: 'openai',
      kind: 'automatic-prefix',
      minCacheableTokens: 1024,
      granularityTokens: 128,
      ttlMs: 2 * 60 * 60 * 1000,
      ttl1hMs: null,
      writesBilled: false,
      maxBreakpoints: 0,
      transientMissRate: 0.023,
      documentedTtlMs: 5 * 60 * 1000,
      sharedAcrossSessions: true,
      source: CACHE_RULES.openai.source,
    });
    expect(CACHE_RULES['no-cache'].minCacheableTokens).toBe(Number.MAX_SAFE_INTEGER);
    expect(CACHE_RULES.anthropic.ttl1hMs).toBe(60 * 60 * 1000);
    expect(CACHE_RULES['minimax-anthropic'].ttl1hMs).toBeNull();
  });
});
