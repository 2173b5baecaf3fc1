import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { priceForModel } from '../../src/cost/model-resolution.js';

// Models seen unpriced in real Claude Code and Codex logs; each now has a public price with its
// source in prices.json (models.dev TOML files, dated 2026-12-01).
describe('bundled prices for models seen in real logs', () => {
  it.each([
    ['claude-opus-4-7', 5, 25],
    ['gpt-5.1-codex-max', 1.25, 10],
    ['gpt-5.4-mini', 0.75, 4.5],
    ['kimi-k2.5', 0.6, 3],
    ['mimo-v2.5-pro', 1, 3],
    ['MiniMax-M2', 0.3, 1.2],
  ])('%s is priced at $%s in / $%s out per MTok', (model, input, output) => {
    const price = priceForModel(loadBundledPriceTable(), model, Date.UTC(2026, 5, 1));
    expect(price).not.toBeNull();
    expect(price?.id).toBe(model);
    expect(price?.source).toMatch(/models\.dev/);
    // $/MTok = pico-dollars per token ÷ 10^6.
    expect(price?.ratesPicoUsdPerToken.input).toBe(Math.round(input * 1e6));
    expect(price?.ratesPicoUsdPerToken.output).toBe(Math.round(output * 1e6));
  });
});
