import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { formatPicoUsd } from '../../src/cost/money.js';
import { priceRow } from '../../src/cost/price-request.js';
import { buildPriceTable, normalizePrice } from '../../src/cost/price-table.js';
import type { BillableUsage } from '../../src/cost/price-request.js';
import type { RequestRow } from '../../src/cost/rows.js';

const table = loadBundledPriceTable();
const AUG_2026 = Date.parse('2026-08-04T12:00:00Z');

type Usage = Partial<BillableUsage> & Pick<RequestRow, 'model'>;

/** Prices a request whose prompt is the sum of its classes; returns the total in exact USD, or null. */
function usd(usage: Usage, timestampMs: number | null = AUG_2026): string | null {
  const row = {
    kind: 'request' as const,
    cache_read_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    uncached_input_tokens: 0,
    output_tokens: 0,
    ...usage,
    timestamp_ms: timestampMs,
  };
  const prompt =
    row.cache_read_tokens + row.cache_write_5m_tokens + row.cache_write_1h_tokens + row.uncached_input_tokens;
  const cost = priceRow(table, { ...row, prompt_tokens: usage.prompt_tokens ?? prompt });
  return cost === null ? null : formatPicoUsd(cost.totalPicoUsd);
}

describe('priceRequest: hand-computed examples per provider family', () => {
  it('Anthropic: read, 5m and 1h writes at their own rates', () => {
    // 80,000 × $0.30 + 15,000 × $3.75 + 5,000 × $6 + 2,000 × $15 (per MTok) = 0.024 + 0.05625 + 0.03 + 0.03
    expect(
      usd({
        model: 'claude-sonnet-4-5',
        cache_read_tokens: 80_000,
        cache_write_5m_tokens: 15_000,
        cache_write_1h_tokens: 5_000,
        output_tokens: 2_000,
      }),
    ).toBe('0.14025');
  });

  it('Anthropic above 200K: every token, all classes and the output, at the premium', () => {
    // 200,000 × $0.60 + 40,000 × $7.50 + 10,000 × $12 + 1,000 × $22.50 = 0.12 + 0.3 + 0.12 + 0.0225
    expect(
      usd({
        model: 'claude-sonnet-4-5',
        cache_read_tokens: 200_000,
        cache_write_5m_tokens: 40_000,
        cache_write_1h_tokens: 10_000,
        output_tokens: 1_000,
      }),
    ).toBe('0.5625');
    // Exactly 200,000 does not exceed the tier: 150,000 × $0.30 + 50,000 × $3.75 + 1,000 × $15.
    expect(
      usd({
        model: 'claude-sonnet-4-5',
        cache_read_tokens: 150_000,
        cache_write_5m_tokens: 50_000,
        output_tokens: 1_000,
      }),
    ).toBe('0.2475');
  });

  it('OpenAI: cached reads at 0.1x, writes free, the rest at the input price', () => {
    // 40,960 × $0.125 + 9,040 × $1.25 + 500 × $10 = 0.00512 + 0.0113 + 0.005
    expect(usd({ model: 'gpt-5', cache_read_tokens: 40_960, uncached_input_tokens: 9_040, output_tokens: 500 })).toBe(
      '0.02142',
    );
  });

  it('DeepSeek: hits and misses at the price in effect at the request time', () => {
    // 2026: 64,000 × $0.028 + 1,000 × $0.28 + 800 × $0.42
    expect(
      usd({ model: 'deepseek-chat', cache_read_tokens: 64_000, uncached_input_tokens: 1_000, output_tokens: 800 }),
    ).toBe('0.002408');
    // Early 2025 (V3): 64,000 × $0.07 + 1,000 × $0.27 + 800 × $1.10 = 0.00448 + 0.00027 + 0.00088
    expect(
      usd(
        { model: 'deepseek-chat', cache_read_tokens: 64_000, uncached_input_tokens: 1_000, output_tokens: 800 },
        Date.parse('2025-03-01T00:00:00Z'),
      ),
    ).toBe('0.00563');
  });

  it('MiniMax above 512K: everything doubles; a 1h write has no price (unpriced, not $0)', () => {
    // 500,000 × $0.12 + 100,000 × $0.75 + 1,000 × $2.40
    expect(
      usd({ model: 'MiniMax-M3', cache_read_tokens: 500_000, cache_write_5m_tokens: 100_000, output_tokens: 1_000 }),
    ).toBe('0.1374');
    expect(usd({ model: 'MiniMax-M3', cache_write_1h_tokens: 1_000 })).toBeNull();
  });

  it('Gemini above 200K uses the explicit tier rates', () => {
    // 150,000 × $0.25 + 60,000 × $2.50 + 1,000 × $15
    expect(
      usd({ model: 'gemini-2.5-pro', cache_read_tokens: 150_000, uncached_input_tokens: 60_000, output_tokens: 1_000 }),
    ).toBe('0.2025');
  });

  it('Sonnet 5 at its introductory price, then the later one', () => {
    // 10,000 × $2.50 (5m write) + 1,000 × $10
    expect(
      usd(
        { model: 'claude-sonnet-5', cache_write_5m_tokens: 10_000, output_tokens: 1_000 },
        Date.parse('2026-08-31T10:00:00Z'),
      ),
    ).toBe('0.035');
    expect(
      usd(
        { model: 'claude-sonnet-5', cache_write_5m_tokens: 10_000, output_tokens: 1_000 },
        Date.parse('2026-09-01T10:00:00Z'),
      ),
    ).toBe('0.0525');
  });

  it('a model without caching prices uncached input, and is unpriced if a cache class is used', () => {
    expect(usd({ model: 'gpt-4', uncached_input_tokens: 5_000, output_tokens: 100 })).toBe('0.156');
    expect(usd({ model: 'gpt-4', cache_read_tokens: 2_000, uncached_input_tokens: 3_000 })).toBeNull();
  });

  it('an unknown model is unpriced (null, never 0); a rejected overflow is not billed (0)', () => {
    expect(usd({ model: 'default', uncached_input_tokens: 1_000 })).toBeNull();
    expect(usd({ model: 'meta-llama/llama-4-maverick', uncached_input_tokens: 1_000 })).toBeNull();
    expect(usd({ model: 'default', kind: 'rejected_overflow', prompt_tokens: 300_000 })).toBe('0');
    expect(usd({ model: 'claude-sonnet-4-5', kind: 'rejected_overflow', prompt_tokens: 300_000 })).toBe('0');
  });

  it('a request of a known model at a time no price window covers is unpriced; no timestamp takes the current price', () => {
    const window = (validFromMs: number | null, validToMs: number | null, input: number) =>
      normalizePrice({
        id: 'gap-model',
        aliases: [],
        provider: 'anthropic',
        cacheFamily: 'anthropic',
        contextWindowTokens: null,
        maxOutputTokens: null,
        validFromMs,
        validToMs,
        ratesPicoUsdPerToken: { input, output: input },
        longContext: null,
        source: 'test',
        date: '2026-11-29',
        origin: 'cachecost-file',
      });
    const built = buildPriceTable([window(null, 1000, 1_000_000), window(2000, null, 2_000_000)]);
    if (built.kind !== 'ok') throw new Error(built.reason);
    const row = {
      kind: 'request' as const,
      prompt_tokens: 10,
      cache_read_tokens: 0,
      cache_write_5m_tokens: 0,
      cache_write_1h_tokens: 0,
      uncached_input_tokens: 10,
      output_tokens: 0,
    };
    expect(priceRow(built.table, { ...row, model: 'gap-model', timestamp_ms: 999 })?.totalPicoUsd).toBe(10_000_000n);
    expect(priceRow(built.table, { ...row, model: 'gap-model', timestamp_ms: 1500 })).toBeNull();
    expect(priceRow(built.table, { ...row, model: 'gap-model', timestamp_ms: null })?.totalPicoUsd).toBe(20_000_000n);
  });
});
