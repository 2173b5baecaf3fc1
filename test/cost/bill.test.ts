/**
 * The bill priced in DuckDB (replay.md §3, pricing.md): one hand-computed example per provider family, with every
 * amount written out in micro-dollars (tokens × $/MTok), the unknown-TTL writes kept apart, the
 * date-effective price, and unpriced requests left out of the cost (never $0).
 */
import { describe, expect, it } from 'vitest';
import { bill, micro, session, usage } from './bill-support.js';

describe('the bill, per provider family', () => {
  it('Anthropic: a 1h write, a request above the 200K long-context tier, and a write of unknown TTL', async () => {
    // claude-sonnet-4-5: in $3, read $0.30, 5m $3.75, 1h $6, out $15; above 200K input every class ×2, output ×1.5.
    const s = session('anth', 'proj', [
      // 1,000×3 + 50,000×0.3 + 2,000×3.75 + 4,000×6 + 500×15 = 3,000 + 15,000 + 7,500 + 24,000 + 7,500 = 57,000 µ$
      {
        model: 'claude-sonnet-4-5',
        at: '2026-01-10T10:00:00Z',
        usage: usage({ uncached: 1_000, read: 50_000, w5m: 2_000, w1h: 4_000, out: 500 }),
      },
      // prompt 210,010 > 200,000: 10×6 + 190,000×0.6 + 20,000×12 + 1,000×22.5 = 60 + 114,000 + 240,000 + 22,500 = 376,560 µ$
      {
        model: 'claude-sonnet-4-5-20250929',
        at: '2026-01-10T11:00:00Z',
        usage: usage({ uncached: 10, read: 190_000, w1h: 20_000, out: 1_000 }),
      },
      // exactly 200,000: not above the tier. 200,000×0.3 + 0 = 60,000 µ$ (+ 100×15 = 1,500) = 61,500 µ$
      { model: 'claude-sonnet-4-5', at: '2026-01-10T12:00:00Z', usage: usage({ read: 200_000, out: 100 }) },
      // no 5m/1h split: 100×3 + 8,000×3.75 (5m rate) + 200×15 = 300 + 30,000 + 3,000 = 33,300 µ$
      {
        model: 'claude-sonnet-4-5',
        at: '2026-01-10T13:00:00Z',
        usage: usage({ uncached: 100, w5m: 8_000, out: 200, split: false }),
      },
    ]);
    const { total, lines } = await bill([s], 'session');
    expect(lines).toHaveLength(1);
    expect(total.cost?.picoUsd).toBe(micro(57_000 + 376_560 + 61_500 + 33_300));
    expect(total.longContextRequests).toBe(1);
    expect(total.cacheWrite5mTokens).toBe(2_000);
    expect(total.cacheWrite1hTokens).toBe(24_000);
    expect(total.cacheWriteUnknownTtlTokens).toBe(8_000);
    expect(total.cacheWrite1hCost?.picoUsd).toBe(micro(24_000 + 240_000));
    expect(total.cacheWrite5mCost?.picoUsd).toBe(micro(7_500));
    expect(total.cacheWriteUnknownTtlCost?.picoUsd).toBe(micro(30_000));
    expect(total.inputCost?.picoUsd).toBe(micro(3_000 + 60 + 300));
    expect(total.cacheReadCost?.picoUsd).toBe(micro(15_000 + 114_000 + 60_000));
    expect(total.outputCost?.picoUsd).toBe(micro(7_500 + 22_500 + 1_500 + 3_000));
    expect(total.promptTokens).toBe(57_000 + 210_010 + 200_000 + 8_100);
    // hit rate = read / prompt
    expect(total.cacheHitRatePct).toBeCloseTo((100 * 440_000) / 475_110, 9);
    expect(total.cost?.usd).toBeCloseTo(0.52836, 12);
  });

  it('OpenAI-style: cached tokens inside the prompt, no write fee; GPT-5.4 above 272K at 2x input and 1.5x output', async () => {
    const s = session(
      'oai',
      null,
      [
        // gpt-5.2: in $1.75, cached $0.175, out $14. 20,000×1.75 + 80,000×0.175 + 2,000×14 = 35,000 + 14,000 + 28,000 = 77,000 µ$
        {
          model: 'gpt-5.2',
          at: '2026-01-10T10:00:00Z',
          usage: usage({ uncached: 20_000, read: 80_000, out: 2_000 }),
          provider: 'openai',
        },
        // gpt-5.4 prompt 300,000 > 272,000: 50,000×5 + 250,000×0.5 + 1,000×22.5 = 250,000 + 125,000 + 22,500 = 397,500 µ$
        {
          model: 'gpt-5.4',
          at: '2026-01-10T11:00:00Z',
          usage: usage({ uncached: 50_000, read: 250_000, out: 1_000 }),
          provider: 'openai',
        },
      ],
      'codex',
    );
    const { total } = await bill([s], 'model');
    expect(total.cost?.picoUsd).toBe(micro(77_000 + 397_500));
    expect(total.longContextRequests).toBe(1);
    expect(total.cacheWriteUnknownTtlTokens).toBe(0);
  });

  it('DeepSeek: hits and misses at the price in force on the request date', async () => {
    const hit = usage({ uncached: 4_000, read: 60_000, out: 1_000 });
    const s = session('ds', null, [
      // from 2025-09-29: miss $0.28, hit $0.028, out $0.42 → 1,120 + 1,680 + 420 = 3,220 µ$
      { model: 'deepseek-chat', at: '2025-10-01T00:00:00Z', usage: hit },
      // 2025-09-05 .. 09-28: miss $0.56, hit $0.07, out $1.68 → 2,240 + 4,200 + 1,680 = 8,120 µ$
      { model: 'deepseek-chat', at: '2025-09-10T00:00:00Z', usage: hit },
    ]);
    const { lines, total } = await bill([s], 'day');
    expect(lines.map((l) => [l.key, l.cost?.picoUsd])).toEqual([
      ['2025-09-10', micro(8_120)],
      ['2025-10-01', micro(3_220)],
    ]);
    expect(total.cost?.picoUsd).toBe(micro(11_340));
  });

  it('MiniMax (Anthropic-style): 5m write 1.25x, read 0.2x; a 1h write it has no price for is unpriced, never $0', async () => {
    const s = session('mm', null, [
      // MiniMax-M2.7: in $0.30, read $0.06, 5m $0.375, out $1.20 → 300 + 1,800 + 1,875 + 960 = 4,935 µ$
      {
        model: 'MiniMax-M2.7',
        at: '2026-01-10T10:00:00Z',
        usage: usage({ uncached: 1_000, read: 30_000, w5m: 5_000, out: 800 }),
      },
      { model: 'MiniMax-M2.7', at: '2026-01-10T11:00:00Z', usage: usage({ uncached: 10, w1h: 1_000, out: 5 }) },
    ]);
    const { total, unpriced } = await bill([s], 'model');
    expect(total.cost?.picoUsd).toBe(micro(4_935));
    expect(total.unpricedRequests).toBe(1);
    expect(total.unpricedTokens).toBe(1_015);
    expect(unpriced).toEqual([{ model: 'MiniMax-M2.7', requests: 1, tokens: 1_015 }]);
  });

  it('an unknown model has no cost at all (null), and its tokens are counted as unpriced', async () => {
    const s = session('x', null, [
      { model: 'mystery-model-9', at: '2026-01-10T10:00:00Z', usage: usage({ uncached: 500, out: 50 }) },
    ]);
    const { total } = await bill([s], 'model');
    expect(total.cost).toBeNull();
    expect(total.unpricedRequests).toBe(1);
    expect(total.unpricedTokens).toBe(550);
    expect(total.requests).toBe(1);
  });
});
