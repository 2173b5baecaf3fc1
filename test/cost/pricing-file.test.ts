import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CachecostError } from '../../src/session/errors.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { modelFacts, resolveModelName } from '../../src/cost/model-resolution.js';
import { priceAt } from '../../src/cost/price-table.js';
import { detectPricingFormat, loadPricingFile, overlayPricingJson } from '../../src/cost/pricing-file.js';

const bundled = loadBundledPriceTable();
const MTOK = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'cachecost-pricing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const MODELS_DEV = {
  anthropic: {
    id: 'anthropic',
    models: {
      'claude-sonnet-4-5': {
        id: 'claude-sonnet-4-5',
        cost: {
          input: 3.3,
          output: 16.5,
          cache_read: 0.33,
          cache_write: 4.125,
          context_over_200k: { input: 6.6, output: 24.75, cache_read: 0.66, cache_write: 8.25 },
        },
        limit: { context: 1_000_000, output: 64_000 },
      },
      'claude-sonnet-5': {
        cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        limit: { context: 1_000_000, output: 128_000 },
      },
      'claude-new-9': { cost: { input: 4, output: 20 }, limit: { context: 500_000, output: 50_000 } },
    },
  },
  'amazon-bedrock': { models: { 'claude-sonnet-4-5': { cost: { input: 99, output: 99 } } } },
  openrouter: {
    models: {
      'meta-llama/llama-4-maverick': {
        cost: { input: 0.15, output: 0.6 },
        limit: { context: 1_048_576, output: 16_384 },
      },
    },
  },
  groq: { models: { 'llama-x': { cost: { input: 0.1, output: 0.2 } } } },
  togetherai: { models: { 'llama-x': { cost: { input: 0.3, output: 0.4 } } } },
  openai: { models: { 'text-embedding-3-small': { limit: { context: 8191, output: 0 } } } },
  google: {
    models: {
      'gemini-9-pro': {
        cost: {
          input: 2,
          output: 12,
          cache_read: 0.2,
          tiers: [{ tier: { type: 'context', size: 300_000 }, input: 4, output: 18, cache_read: 0.4 }],
        },
      },
    },
  },
};

const LITELLM = {
  sample_spec: {
    max_tokens: 'LEGACY parameter',
    input_cost_per_token: 0,
    litellm_provider: 'one of https://docs.litellm.ai/docs/providers',
  },
  'claude-sonnet-4-5-20250929': {
    litellm_provider: 'anthropic',
    mode: 'chat',
    input_cost_per_token: 3.1e-6,
    output_cost_per_token: 1.5e-5,
  },
  'claude-sonnet-4-5': {
    litellm_provider: 'anthropic',
    mode: 'chat',
    input_cost_per_token: 3e-6,
    output_cost_per_token: 1.5e-5,
    cache_read_input_token_cost: 3e-7,
    cache_creation_input_token_cost: 3.75e-6,
    cache_creation_input_token_cost_above_1hr: 6e-6,
    input_cost_per_token_above_200k_tokens: 6e-6,
    output_cost_per_token_above_200k_tokens: 2.25e-5,
    cache_read_input_token_cost_above_200k_tokens: 6e-7,
    cache_creation_input_token_cost_above_200k_tokens: 7.5e-6,
    max_input_tokens: 1_000_000,
    max_output_tokens: 64_000,
  },
  'gpt-4o': {
    litellm_provider: 'openai',
    input_cost_per_token: 2.5e-6,
    output_cost_per_token: 1e-5,
    cache_read_input_token_cost: 1.25e-6,
  },
  'text-embedding-3-large': {
    litellm_provider: 'openai',
    mode: 'embedding',
    input_cost_per_token: 1.3e-7,
    output_cost_per_token: 0,
  },
  'deepseek/deepseek-chat': {
    litellm_provider: 'deepseek',
    input_cost_per_token: 2.8e-7,
    output_cost_per_token: 4.2e-7,
    cache_read_input_token_cost: 2.8e-8,
  },
  'gpt-5.4': {
    litellm_provider: 'openai',
    input_cost_per_token: 2.5e-6,
    output_cost_per_token: 1.5e-5,
    cache_read_input_token_cost: 2.5e-7,
    input_cost_per_token_above_272k_tokens: 5e-6,
    output_cost_per_token_above_272k_tokens: 2.25e-5,
  },
  'openrouter/meta-llama/llama-4-maverick': {
    litellm_provider: 'openrouter',
    input_cost_per_token: 1.5e-7,
    output_cost_per_token: 6e-7,
  },
  'gpt-5.7': {
    litellm_provider: 'openai',
    input_cost_per_token: 2e-6,
    output_cost_per_token: 1.6e-5,
    cache_read_input_token_cost: 2e-7,
  },
};

describe('models.dev api.json', () => {
  const { table, report } = overlayPricingJson(bundled, MODELS_DEV, 'models.json', '2026-07-02');

  it('is detected by shape', () => {
    expect(detectPricingFormat(MODELS_DEV)).toBe('models.dev');
    expect(report.format).toBe('models.dev');
  });

  it('replaces a first-party model, derives the 1h write it lacks, and keeps the bundled names', () => {
    const sonnet = priceAt(table, 'claude-sonnet-4-5', null);
    expect(sonnet?.ratesPicoUsdPerToken).toEqual({
      input: 3.3 * MTOK,
      output: 16.5 * MTOK,
      cacheRead: 330_000,
      cacheWrite5m: 4_125_000,
      cacheWrite1h: 6.6 * MTOK,
    });
    expect(sonnet?.derived).toEqual(['cacheWrite1h', 'longContext.cacheWrite1h']);
    expect(sonnet?.longContext).toEqual({
      thresholdTokens: 200_000,
      ratesPicoUsdPerToken: {
        input: 6.6 * MTOK,
        output: 24.75 * MTOK,
        cacheRead: 660_000,
        cacheWrite5m: 8.25 * MTOK,
        cacheWrite1h: 13.2 * MTOK,
      },
    });
    expect(sonnet).toMatchObject({ origin: 'models.dev', date: '2026-07-02', contextWindowTokens: 1_000_000 });
    expect(resolveModelName(table, 'claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
  });

  it('a replaced model has one undated price (the file is what the user wants applied)', () => {
    expect(table.windowsById.get('claude-sonnet-5')).toHaveLength(1);
    expect(priceAt(table, 'claude-sonnet-5', Date.parse('2026-08-01T00:00:00Z'))?.ratesPicoUsdPerToken.input).toBe(
      3 * MTOK,
    );
  });

  it("ignores a reseller's copy of a first-party model and adds unknown models under provider/key", () => {
    expect(report.ignored).toBe(1);
    expect(report.replaced).toEqual(['claude-sonnet-4-5', 'claude-sonnet-5']);
    expect(resolveModelName(table, 'claude-new-9')?.id).toBe('anthropic/claude-new-9');
    expect(priceAt(table, 'anthropic/claude-new-9', null)).toMatchObject({
      cacheFamily: 'anthropic',
      ratesPicoUsdPerToken: { input: 4 * MTOK, cacheRead: 400_000, cacheWrite5m: 5 * MTOK, cacheWrite1h: 8 * MTOK },
    });
    expect(modelFacts(table, 'meta-llama/llama-4-maverick')).toMatchObject({
      id: 'openrouter/meta-llama/llama-4-maverick',
      cacheFamily: 'no-cache',
    });
  });

  it('never guesses an ambiguous name: a key two providers offer resolves only when qualified', () => {
    expect(resolveModelName(table, 'llama-x')).toBeNull();
    expect(priceAt(table, 'groq/llama-x', null)?.ratesPicoUsdPerToken.input).toBe(100_000);
    expect(priceAt(table, 'togetherai/llama-x', null)?.ratesPicoUsdPerToken.input).toBe(300_000);
  });

  it('reads `[[cost.tiers]]` context tiers and skips models without a price', () => {
    expect(priceAt(table, 'google/gemini-9-pro', null)?.longContext).toMatchObject({
      thresholdTokens: 300_000,
      ratesPicoUsdPerToken: { input: 4 * MTOK, output: 18 * MTOK, cacheRead: 400_000, cacheWrite5m: 0 },
    });
    expect(resolveModelName(table, 'text-embedding-3-small')).toBeNull();
  });
});

describe('LiteLLM price map', () => {
  const { table, report } = overlayPricingJson(bundled, LITELLM, 'prices.json', '2026-10-01');

  it('is detected by shape; an exact id beats an alias whatever the file order', () => {
    expect(report.format).toBe('litellm');
    expect(priceAt(table, 'claude-sonnet-4-5', null)?.ratesPicoUsdPerToken).toEqual({
      input: 3 * MTOK,
      output: 15 * MTOK,
      cacheRead: 300_000,
      cacheWrite5m: 3_750_000,
      cacheWrite1h: 6 * MTOK,
    });
    expect(priceAt(table, 'claude-sonnet-4-5', null)?.derived).toEqual(['longContext.cacheWrite1h']);
    expect(priceAt(table, 'claude-sonnet-4-5', null)?.longContext?.ratesPicoUsdPerToken.cacheWrite1h).toBe(12 * MTOK);
  });

  it('reads `_above_<N>k_tokens` tiers and stacks the missing cache rates', () => {
    expect(priceAt(table, 'gpt-5.4', null)?.longContext).toEqual({
      thresholdTokens: 272_000,
      ratesPicoUsdPerToken: {
        input: 5 * MTOK,
        output: 22.5 * MTOK,
        cacheRead: 500_000,
        cacheWrite5m: 0,
        cacheWrite1h: null,
      },
    });
  });

  it('resolves provider-prefixed keys, derives DeepSeek writes, skips embeddings and sample_spec', () => {
    expect(priceAt(table, 'deepseek-chat', null)).toMatchObject({
      origin: 'litellm',
      ratesPicoUsdPerToken: { input: 280_000, output: 420_000, cacheRead: 28_000, cacheWrite5m: 280_000 },
    });
    expect(resolveModelName(table, 'text-embedding-3-large')).toBeNull();
    expect(resolveModelName(table, 'sample_spec')).toBeNull();
    expect(resolveModelName(table, 'openrouter/meta-llama/llama-4-maverick')?.id).toBe(
      'openrouter/meta-llama/llama-4-maverick',
    );
    expect(resolveModelName(table, 'meta-llama/llama-4-maverick')).toBeNull();
  });

  it('gives a new GPT-5.6+ model billed writes (1.25x) and breakpoints', () => {
    expect(modelFacts(table, 'gpt-5.7')).toMatchObject({
      id: 'openai/gpt-5.7',
      cacheFamily: 'openai-5.6+',
      ratesPicoUsdPerToken: { cacheWrite5m: 2_500_000 },
    });
  });
});

describe('cachecost price files', () => {
  it('replaces every window of the model they name, with their own dates', () => {
    const json = {
      format: 'cachecost-prices',
      version: 1,
      date: '2026-11-01',
      models: [
        {
          id: 'gpt-4-1106-preview',
          provider: 'openai',
          cacheFamily: 'no-cache',
          contextWindowTokens: 128000,
          maxOutputTokens: 4096,
          validTo: '2024-12-31',
          usdPerMTok: { input: 10, output: 30 },
          source: 'negotiated',
          date: '2026-11-01',
        },
        {
          id: 'gpt-4-1106-preview',
          provider: 'openai',
          cacheFamily: 'no-cache',
          contextWindowTokens: 128000,
          maxOutputTokens: 4096,
          validFrom: '2025-01-01',
          usdPerMTok: { input: 8, output: 24 },
          source: 'negotiated',
          date: '2026-11-01',
        },
      ],
    };
    const { table, report } = overlayPricingJson(bundled, json, 'mine.json', '2026-11-29');
    expect(report).toMatchObject({ format: 'cachecost', replaced: ['gpt-4-turbo'] });
    expect(priceAt(table, 'gpt-4-turbo', Date.parse('2025-06-01T00:00:00Z'))?.ratesPicoUsdPerToken.input).toBe(
      8 * MTOK,
    );
    expect(resolveModelName(table, 'gpt-4-turbo-2024-04-09')?.id).toBe('gpt-4-turbo');
  });
});

describe('bad pricing files', () => {
  async function failure(content: string): Promise<CachecostError> {
    const path = file(`bad-${Math.random().toString(36).slice(2)}.json`, content);
    try {
      await loadPricingFile(path, bundled);
    } catch (error) {
      if (error instanceof CachecostError) return error;
      throw error;
    }
    throw new Error('expected a CachecostError');
  }

  it.each([
    ['not JSON', '{ nope', /not valid JSON/],
    ['an unknown shape', '[1, 2]', /not a models\.dev api\.json, a LiteLLM price map or a cachecost price file/],
    [
      'a LiteLLM price as a string',
      JSON.stringify({ x: { litellm_provider: 'openai', input_cost_per_token: '3e-06', output_cost_per_token: 1e-5 } }),
      /x\.input_cost_per_token/,
    ],
    [
      'a negative models.dev price',
      JSON.stringify({ openai: { models: { m: { cost: { input: -1, output: 1 } } } } }),
      /openai\.models\.m\.cost\.input/,
    ],
    [
      'overlapping cachecost windows',
      JSON.stringify({
        format: 'cachecost-prices',
        version: 1,
        date: '2026-11-01',
        models: [1, 2].map(() => ({
          id: 'z',
          provider: 'p',
          cacheFamily: 'openai',
          contextWindowTokens: null,
          maxOutputTokens: null,
          usdPerMTok: { input: 1, output: 1 },
          source: 's',
          date: 'd',
        })),
      }),
      /overlap/,
    ],
  ])('%s → BAD_PRICING_FILE with a one-line message', async (_name, content, message) => {
    const error = await failure(content);
    expect(error.code).toBe('BAD_PRICING_FILE');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });

  it('a missing file is BAD_PRICING_FILE too', async () => {
    await expect(loadPricingFile(join(dir, 'absent.json'), bundled)).rejects.toMatchObject({
      code: 'BAD_PRICING_FILE',
    });
  });

  it('a good file on disk loads and is dated by its modification time', async () => {
    const { table } = await loadPricingFile(file('litellm.json', JSON.stringify(LITELLM)), bundled);
    expect(priceAt(table, 'gpt-4o', null)?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
