import { describe, expect, it } from 'vitest';
import { ttlMismatch } from '../../src/detect/ttl-mismatch.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { RequestSpec } from './trace-fixture.js';
import { input, pico, requests, trace } from './trace-fixture.js';

/** Requests `gapS` seconds apart, each 1,000 tokens longer; a gap over 5 minutes makes the next one cold under 5m writes. */
function fiveMinute(gapsS: readonly number[]): RequestSpec[] {
  const list: RequestSpec[] = [{ prompt: 100_000, write5m: 100_000, output: 0, atS: 0 }];
  let atS = 0;
  for (const [i, gap] of gapsS.entries()) {
    atS += gap;
    const prompt = 101_000 + 1_000 * i;
    const cold = gap > 300;
    list.push({ prompt, read: cold ? 0 : prompt - 1_000, write5m: cold ? prompt : 1_000, output: 0, atS });
  }
  return list;
}

function flagFor(list: readonly RequestSpec[], thresholds = {}) {
  return ttlMismatch.detect(input(trace({ requests: requests(list) }), { thresholds }));
}

describe('TTL mismatch', () => {
  it('flags three 5–60 minute gaps that each re-wrote the context when 1-hour writes save more, not two', () => {
    const flag = flagFor(fiveMinute([600, 600, 600]));
    // Actual: 406,000 tokens written at $3.75. With 1h writes: 100,000 + 3 × 1,000 written at $6,
    // and 100,000 + 101,000 + 102,000 read at $0.30.
    const actual = 406_000 * 3.75;
    const oneHour = 103_000 * 6 + 303_000 * 0.3;
    expect(flag).toMatchObject({ kind: 'ttl-mismatch', severity: 'info', requests: { first: 1, last: 3 } });
    expect(flag?.stake).toEqual({
      kind: 'priced',
      picoUsd: pico((actual - oneHour) / 1e6),
      against: '1h cache writes (every request re-priced under that lifetime)',
    });
    expect(flag?.evidence).toMatchObject({
      gapsChangedByOtherTtl: 3,
      cacheWrite5mTokens: 406_000,
      cacheWrite1hTokens: 0,
    });
    expect(flagFor(fiveMinute([600, 600]))).toBeNull();
  });

  it('a gap of exactly 5 minutes keeps the cache; over an hour no lifetime helps', () => {
    expect(flagFor(fiveMinute([600, 600, 300, 600]))?.evidence['gapsChangedByOtherTtl']).toBe(3);
    expect(flagFor(fiveMinute([600, 600, 3_601]))).toBeNull();
  });

  it('flags 1-hour writes on requests seconds apart: 5-minute writes cost $2.25/MTok less', () => {
    // 30 requests 5 s apart; each re-writes a 10,000-token tail of a 150,000-token prompt.
    const list: RequestSpec[] = Array.from({ length: 30 }, (_, i) => ({
      prompt: 150_000,
      read: i === 0 ? 0 : 140_000,
      write1h: i === 0 ? 150_000 : 10_000,
      output: 0,
      atS: i * 5,
    }));
    const flag = flagFor(list);
    // 150,000 + 29 × 10,000 = 440,000 tokens at $6 instead of $3.75.
    expect(flag?.stake).toMatchObject({ kind: 'priced', picoUsd: pico((440_000 * 2.25) / 1e6) });
    expect(flag?.summary).toMatch(/440K tokens written at the 1-hour rate while requests came 5 s apart/);
    expect(flag?.requests).toEqual({ first: 0, last: 29 });
    // 100,000 + 2 × 10,000 tokens save $0.27, above the $0.25 floor; one request fewer saves $0.2475.
    const small = list.map((spec, i) =>
      i === 0 ? { ...spec, prompt: 100_000, write1h: 100_000 } : { ...spec, prompt: 100_000, read: 90_000 },
    );
    expect(flagFor(small.slice(0, 3))).not.toBeNull();
    expect(flagFor(small.slice(0, 2))).toBeNull();
  });

  it('needs the other lifetime to save at least the minimum', () => {
    expect(flagFor(fiveMinute([600, 600, 600]), { minUsdAtStake: 0.82 })).toBeNull();
  });

  it('skips providers without a 1-hour cache', () => {
    const list = requests(fiveMinute([600, 600, 600]));
    expect(
      ttlMismatch.detect(input(trace({ requests: list }), { rules: CACHE_RULES['minimax-anthropic'] })),
    ).toBeNull();
  });
});
