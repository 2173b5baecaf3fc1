import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { modelFacts, priceForModel, resolveCacheRules, resolveModelName } from '../../src/cost/model-resolution.js';
import { buildPriceTable, normalizePrice, priceAt } from '../../src/cost/price-table.js';
import type { ModelPrice, PriceDraft } from '../../src/cost/price-table.js';
import { cacheFamilyForProvider } from '../../src/provider/cache-rules.js';

const table = loadBundledPriceTable();
const MTOK = 1_000_000;

function at(iso: string): number {
  return Date.parse(iso);
}

describe('bundled price table', () => {
  it('prices every model of the datasets, the real logs and pricing.md', () => {
    const required = [
      // datasets
      'MiniMax-M3',
      'gpt-5',
      'deepseek-chat',
      'claude-sonnet-4-5',
      // ../shared/real-logs
      'claude-sonnet-4-20250514',
      'claude-opus-4-20250514',
      'gpt-5.2-codex',
      'gpt-5-codex',
      'gpt-5.1-codex',
      'claude-3-5-sonnet-20241022',
      'gpt-4o-2024-08-06',
      'gpt-4',
      'gpt-4-1106-preview',
      // pricing.md
      'claude-opus-4-8',
      'claude-opus-4-6',
      'claude-opus-4-5',
      'claude-sonnet-5',
      'claude-sonnet-4-6',
      'claude-haiku-4-5',
      'claude-opus-4-1',
      'claude-3-5-haiku',
      'claude-3-haiku',
      'gpt-5.2',
      'gpt-5.4',
      'gpt-4.1',
      'gpt-4o',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-3-pro-preview',
      'gemini-3-flash-preview',
      'MiniMax-M2.7',
      'deepseek-v4-flash',
    ];
    const missing = required.filter((name) => priceForModel(table, name, at('2026-08-04T00:00:00Z')) === null);
    expect(missing).toEqual([]);
  });

  it('leaves unknown and unsourced models unpriced, never guessing a look-alike', () => {
    const unpriced = [
      'default',
      'meta-llama/llama-4-maverick',
      'openai/openrouter-llama-4-maverick',
      'gpt-4o-2024-05-13', // a different, older price than gpt-4o: not an alias, and not date-stripped
      'claude-opus-5',
      'claude-sonnet-4-5-thinking',
      'openrouter/claude-sonnet-4-5',
      'openai/claude-sonnet-4-5',
    ];
    expect(unpriced.filter((name) => resolveModelName(table, name) !== null)).toEqual([]);
  });

  it('gives every entry a source and a date, and the dataset facts of the brief', () => {
    for (const price of table.prices) {
      expect(price.source.length).toBeGreaterThan(10);
      expect(price.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(modelFacts(table, 'MiniMax-M3')).toMatchObject({
      provider: 'minimax',
      cacheFamily: 'minimax-anthropic',
      contextWindowTokens: 1_000_000,
    });
    expect(modelFacts(table, 'gpt-5')).toMatchObject({
      provider: 'openai',
      contextWindowTokens: 400_000,
      maxOutputTokens: 128_000,
    });
    expect(modelFacts(table, 'deepseek-chat')).toMatchObject({
      provider: 'deepseek',
      contextWindowTokens: 128_000,
      maxOutputTokens: 8000,
    });
    expect(modelFacts(table, 'claude-sonnet-4-5')).toMatchObject({
      provider: 'anthropic',
      contextWindowTokens: 200_000,
      maxOutputTokens: 64_000,
    });
  });

  it('stores MiniMax-M3 at the brief rates with its >512K doubling', () => {
    const m3 = priceAt(table, 'MiniMax-M3', null);
    expect(m3?.ratesPicoUsdPerToken).toEqual({
      input: 300_000,
      output: 1_200_000,
      cacheRead: 60_000,
      cacheWrite5m: 375_000,
      cacheWrite1h: null,
    });
    expect(m3?.longContext).toEqual({
      thresholdTokens: 512_000,
      ratesPicoUsdPerToken: {
        input: 600_000,
        output: 2_400_000,
        cacheRead: 120_000,
        cacheWrite5m: 750_000,
        cacheWrite1h: null,
      },
    });
  });

  it('stacks long-context multipliers on cache rates (Sonnet 4.5 1h write above 200K = $12/MTok)', () => {
    const sonnet = priceAt(table, 'claude-sonnet-4-5', null);
    expect(sonnet?.longContext?.ratesPicoUsdPerToken).toEqual({
      input: 6 * MTOK,
      output: 22.5 * MTOK,
      cacheRead: 0.6 * MTOK,
      cacheWrite5m: 7.5 * MTOK,
      cacheWrite1h: 12 * MTOK,
    });
  });

  it('derives missing cache prices from the provider rules and marks them', () => {
    const sonnet35 = priceAt(table, 'claude-3-5-sonnet', null);
    expect(sonnet35?.ratesPicoUsdPerToken.cacheWrite1h).toBe(6 * MTOK);
    expect(sonnet35?.derived).toEqual(['cacheWrite1h']);
    const gpt5 = priceAt(table, 'gpt-5', null);
    expect(gpt5?.ratesPicoUsdPerToken.cacheWrite5m).toBe(0);
    expect(gpt5?.derived).toEqual(['cacheWrite5m']);
    const deepseek = priceAt(table, 'deepseek-chat', null);
    expect(deepseek?.ratesPicoUsdPerToken.cacheWrite5m).toBe(deepseek?.ratesPicoUsdPerToken.input);
    const gpt4 = priceAt(table, 'gpt-4', null);
    expect(gpt4?.ratesPicoUsdPerToken).toMatchObject({ cacheRead: null, cacheWrite5m: null, cacheWrite1h: null });
    expect(priceAt(table, 'claude-sonnet-4-5', null)?.derived).toEqual([]);
  });

  it('chooses the price window by timestamp (Sonnet 5 introductory price through 2026-08-31 UTC)', () => {
    expect(priceAt(table, 'claude-sonnet-5', at('2026-08-31T23:59:59.999Z'))?.ratesPicoUsdPerToken.input).toBe(
      2 * MTOK,
    );
    expect(priceAt(table, 'claude-sonnet-5', at('2026-09-01T00:00:00Z'))?.ratesPicoUsdPerToken.input).toBe(3 * MTOK);
    expect(priceAt(table, 'claude-sonnet-5', null)?.ratesPicoUsdPerToken.input).toBe(3 * MTOK);
    expect(priceAt(table, 'deepseek-chat', at('2025-09-10T12:00:00Z'))?.ratesPicoUsdPerToken.input).toBe(560_000);
    expect(priceAt(table, 'deepseek-chat', at('2026-08-04T00:00:00Z'))?.ratesPicoUsdPerToken.input).toBe(280_000);
  });
});

describe('model-name resolution', () => {
  it('matches ids and aliases case-insensitively, then the two documented normalizations', () => {
    expect(resolveModelName(table, 'claude-sonnet-4-5')).toEqual({ id: 'claude-sonnet-4-5', basis: 'id' });
    expect(resolveModelName(table, 'minimax-m3')).toEqual({ id: 'MiniMax-M3', basis: 'id' });
    expect(resolveModelName(table, 'claude-sonnet-4-5-20250929')).toEqual({ id: 'claude-sonnet-4-5', basis: 'alias' });
    expect(resolveModelName(table, 'anthropic/claude-sonnet-4-5')).toEqual({
      id: 'claude-sonnet-4-5',
      basis: 'provider-prefix',
    });
    expect(resolveModelName(table, 'anthropic/claude-haiku-4-5-20251001')).toEqual({
      id: 'claude-haiku-4-5',
      basis: 'provider-prefix',
    });
    expect(resolveModelName(table, 'claude-opus-4-6-20260205')).toEqual({
      id: 'claude-opus-4-6',
      basis: 'date-suffix',
    });
    expect(resolveModelName(table, 'gpt-4o-2024-08-06')).toEqual({ id: 'gpt-4o', basis: 'alias' });
  });

  it('resolves cache rules from the price table, else the provider, else the OpenAI-style default', () => {
    expect(resolveCacheRules(table, 'claude-opus-4-5-20251101', 'anthropic')).toMatchObject({
      basis: 'price-table',
      rules: { family: 'anthropic', minCacheableTokens: 4096 },
    });
    expect(resolveCacheRules(table, 'MiniMax-M3', null).rules).toMatchObject({
      kind: 'anthropic-breakpoints',
      minCacheableTokens: 512,
    });
    expect(resolveCacheRules(table, 'claude-opus-5', 'anthropic')).toMatchObject({
      basis: 'provider',
      rules: { minCacheableTokens: 512 },
    });
    expect(resolveCacheRules(table, 'default', null)).toMatchObject({ basis: 'default', rules: { family: 'openai' } });
    expect(cacheFamilyForProvider('openai', 'gpt-5.6')).toBe('openai-5.6+');
    expect(cacheFamilyForProvider('openai', 'gpt-5.2-codex')).toBe('openai');
    expect(cacheFamilyForProvider('openrouter', 'x')).toBeNull();
  });
});

describe('buildPriceTable', () => {
  const draft: PriceDraft = {
    id: 'm',
    aliases: ['m-alias'],
    provider: 'p',
    cacheFamily: 'anthropic',
    contextWindowTokens: null,
    maxOutputTokens: null,
    validFromMs: null,
    validToMs: null,
    ratesPicoUsdPerToken: { input: 1, output: 2 },
    longContext: null,
    source: 'test',
    date: '2026-11-29',
    origin: 'bundled',
  };
  const price = (over: Partial<PriceDraft>): ModelPrice => normalizePrice({ ...draft, ...over });

  it('rejects overlapping windows of one model and a name shared by two models', () => {
    expect(buildPriceTable([price({ validToMs: 100 }), price({ validFromMs: 50 })])).toMatchObject({ kind: 'invalid' });
    expect(buildPriceTable([price({ validToMs: 100 }), price({ validFromMs: 100 })])).toMatchObject({ kind: 'ok' });
    expect(buildPriceTable([price({}), price({ id: 'other', aliases: ['M-ALIAS'] })])).toMatchObject({
      kind: 'invalid',
    });
  });
});
