import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cacheBust } from '../../src/detect/cache-bust.js';
import type { RequestSpec } from './trace-fixture.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { input, requests, trace } from './trace-fixture.js';

const STATIC = 12_000;
/** Write rate minus read rate of claude-sonnet-4-5, in pico-dollars per token. */
const REWRITE_PICO = 3_450_000n;

/** Prompts growing by 2,000; `collapsed[i]` makes request i read only the static block. */
function specs(collapsed: readonly boolean[], extra: (i: number) => Partial<RequestSpec> = () => ({})): RequestSpec[] {
  return collapsed.map((down, i) => {
    const prompt = 20_000 + 2_000 * i;
    const read = i === 0 ? 0 : down ? STATIC : prompt - 2_000;
    return { prompt, read, write5m: prompt - read, output: 0, ...extra(i) };
  });
}

/** These small busts put cents at stake: the dollar floor is off unless a test sets it. */
function flagFor(list: readonly RequestSpec[], thresholds = {}) {
  return cacheBust.detect(
    input(trace({ requests: requests(list) }), { thresholds: { minUsdAtStake: 0, ...thresholds } }),
  );
}

describe('cache bust', () => {
  it('flags three unexplained collapses, not two', () => {
    const flag = flagFor(specs([false, true, true, true]));
    expect(flag).toMatchObject({ kind: 'cache-bust', requests: { first: 1, last: 3 } });
    // Misses: 20,000, 22,000 and 24,000 tokens (the previous prompt) minus the 12,000 read.
    expect(flag?.evidence).toMatchObject({
      collapsedRequests: 3,
      examinedRequests: 3,
      missedReadTokens: 8_000 + 10_000 + 12_000,
      medianReadTokens: STATIC,
    });
    expect(flag?.stake).toEqual({
      kind: 'priced',
      picoUsd: 30_000n * REWRITE_PICO,
      against: 'a stable cache (each collapsed request re-priced with the read an unchanged prefix gives)',
    });
    expect(flagFor(specs([false, true, true]))).toBeNull();
    // $0.1035 at stake: under the default $0.25 floor a reader would not act on it.
    expect(flagFor(specs([false, true, true, true]), { minUsdAtStake: 0.1035 })).not.toBeNull();
    expect(flagFor(specs([false, true, true, true]), { minUsdAtStake: 0.1036 })).toBeNull();
  });

  it('a compaction, a model switch or an idle gap past the TTL explains a collapse', () => {
    const at = (i: number) => ({ atS: i * 10 });
    expect(flagFor(specs([false, true, true, true], (i) => (i === 2 ? { compactionBefore: true } : {})))).toBeNull();
    expect(flagFor(specs([false, true, true, true], (i) => (i === 3 ? { model: 'claude-sonnet-4' } : {})))).toBeNull();
    // 300 s is within the 5-minute TTL; 300.001 s is past it.
    expect(flagFor(specs([false, true, true, true], (i) => (i === 3 ? { atS: 20 + 300 } : at(i))))).not.toBeNull();
    expect(flagFor(specs([false, true, true, true], (i) => (i === 3 ? { atS: 20 + 300.001 } : at(i))))).toBeNull();
  });

  it('a collapse the next request recovers from is a provider blip (FreeCode acquits it too)', () => {
    // Request 2 collapses and request 3 reads request 2's whole prompt again: 2 is acquitted.
    const list = specs([false, true, true, false, true, true]);
    expect(flagFor(list)?.evidence['collapsedRequests']).toBe(3);
    expect(flagFor(list, { cacheBustMinRequests: 4 })).toBeNull();
  });

  it('ignores misses under 1,024 tokens', () => {
    // Prompts grow 500 tokens a request; each read lags the previous prompt by `miss`.
    const small = (miss: number): RequestSpec[] =>
      [0, 1, 2, 3].map((i) => {
        const prompt = 20_000 + 500 * i;
        const read = i === 0 ? 0 : prompt - 500 - miss;
        return { prompt, read, write5m: prompt - read };
      });
    expect(flagFor(small(1_024))?.evidence['missedReadTokens']).toBe(3 * 1_024);
    expect(flagFor(small(1_023))).toBeNull();
  });

  it('a request with no cache activity at all is silent and drops the baseline (logs without cache counters raise nothing)', () => {
    const list: RequestSpec[] = [0, 1, 2, 3, 4].map((i) => ({ prompt: 20_000 + 2_000 * i }));
    expect(
      cacheBust.detect(
        input(trace({ requests: requests(list) }), { rules: CACHE_RULES.openai, thresholds: { minUsdAtStake: 0 } }),
      ),
    ).toBeNull();
    // One silent request among collapses splits them: the one after it has nothing to compare with.
    expect(
      flagFor(specs([false, true, true, true]).map((spec, i) => (i === 2 ? { prompt: spec.prompt } : spec))),
    ).toBeNull();
  });

  it('under automatic caching the expected read is the previous prompt in 128-token steps', () => {
    // Request 0 is cold (no cache activity: no baseline); 1 reads the static block and is the baseline.
    const list: RequestSpec[] = [0, 1, 2, 3, 4].map((i) => ({
      prompt: 20_000 + 2_000 * i,
      read: i === 0 ? 0 : STATIC,
    }));
    const flag = cacheBust.detect(
      input(trace({ requests: requests(list) }), { rules: CACHE_RULES.openai, thresholds: { minUsdAtStake: 0 } }),
    );
    // Expected 21,888, 23,936 and 25,984 (multiples of 128), read 12,000.
    expect(flag?.evidence['missedReadTokens']).toBe(21_888 + 23_936 + 25_984 - 3 * STATIC);
  });

  it('is critical when the collapses cost at least a quarter of the spend', () => {
    const flag = flagFor(specs([false, true, true, true]));
    const share = flag?.evidence['shareOfSpend'] ?? 0;
    expect(share).toBeGreaterThan(0.25);
    expect(flagFor(specs([false, true, true, true]), { cacheBustCriticalCostShare: share })?.severity).toBe('critical');
    expect(flagFor(specs([false, true, true, true]), { cacheBustCriticalCostShare: share + 1e-9 })?.severity).toBe(
      'warning',
    );
  });

  it('property: busts and stake match a hand count of collapses not followed by a stable read', () => {
    // Checked against a deliberate bug: taking the missing reads from uncached input before the 5m
    // writes (each request leaves one token uncached, so the stake then moves $3.00 for it, not $3.75).
    const oneUncached = (collapsed: readonly boolean[]) =>
      specs(collapsed).map((spec) => ({ ...spec, write5m: (spec.write5m ?? 0) - 1 }));
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), (tail) => {
        const collapsed = [false, ...tail];
        let count = 0;
        let missed = 0n;
        for (let i = 1; i < collapsed.length; i++) {
          const recovered = collapsed[i + 1] === false;
          if (collapsed[i] === true && !recovered) {
            count += 1;
            // The previous request cached its whole prompt but the one uncached token.
            missed += BigInt(20_000 + 2_000 * (i - 1) - 1 - STATIC);
          }
        }
        const flag = flagFor(oneUncached(collapsed));
        expect(flag === null ? 0 : flag.evidence['collapsedRequests']).toBe(count >= 3 ? count : 0);
        if (flag !== null) expect(flag.stake).toMatchObject({ kind: 'priced', picoUsd: missed * REWRITE_PICO });
      }),
    );
  });
});
