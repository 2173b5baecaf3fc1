/**
 * The generator's copy of the shared cache rules: the replay.md §11 oracle, number by number,
 * and fast-check properties of its invariants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheSimulator, type CacheRules, type Segment } from '../../src/datagen/cache-sim.js';

const ANTHROPIC: CacheRules = { kind: 'anthropic', minTokens: 1_024, ttlMs: 300_000 };
const OPENAI: CacheRules = { kind: 'automatic', minTokens: 1_024, granularityTokens: 128, ttlMs: 300_000 };

const S = { id: 'S', tokens: 2_000 };
const U1 = { id: 'U1', tokens: 500 };
const A1 = { id: 'A1', tokens: 300 };
const T1 = { id: 'T1', tokens: 1_200 };
const A2 = { id: 'A2', tokens: 200 };
const U2 = { id: 'U2', tokens: 100 };
const SUM = { id: 'Sum', tokens: 400 };
const A3 = { id: 'A3', tokens: 150 };
const ORACLE: readonly (readonly [number, readonly Segment[]])[] = [
  [0, [S, U1]],
  [30_000, [S, U1, A1, T1]],
  [400_000, [S, U1, A1, T1, A2, U2]],
  [420_000, [S, SUM, U2, A3]],
];

describe('replay.md §11 oracle', () => {
  it('Anthropic-style: reads and writes of the four requests', () => {
    const cache = new CacheSimulator(ANTHROPIC);
    const got = ORACLE.map(([at, prompt]) => cache.request(prompt, at));
    expect(got.map((u) => [u.promptTokens, u.cacheReadTokens, u.cacheWriteTokens, u.uncachedTokens])).toEqual([
      [2_500, 0, 2_500, 0],
      [4_000, 2_500, 1_500, 0],
      [4_300, 0, 4_300, 0],
      [2_650, 2_000, 650, 0],
    ]);
    // Costs at $3 input, $3.75 5m write, $0.30 read (output $15: 300, 200, 150, 120 tokens), in micro-dollars.
    const outputs = [300, 200, 150, 120];
    const micro = got.map(
      (u, i) => u.cacheWriteTokens * 3.75 + u.cacheReadTokens * 0.3 + u.uncachedTokens * 3 + (outputs[i] ?? 0) * 15,
    );
    expect(micro.map((m) => Math.round(m * 10) / 10)).toEqual([13_875, 9_375, 18_375, 4_837.5]);
  });

  it('OpenAI-style: cached tokens in 128-token steps, free writes', () => {
    const cache = new CacheSimulator(OPENAI);
    const got = ORACLE.map(([at, prompt]) => cache.request(prompt, at));
    expect(got.map((u) => [u.cacheReadTokens, u.uncachedTokens, u.cacheWriteTokens])).toEqual([
      [0, 2_500, 0],
      [2_432, 1_568, 0],
      [0, 4_300, 0],
      [1_920, 730, 0],
    ]);
  });

  it('a prompt below the minimum is all uncached, and an entry below it is never written', () => {
    const cache = new CacheSimulator(ANTHROPIC);
    expect(cache.request([{ id: 'small', tokens: 900 }], 0)).toEqual({
      promptTokens: 900,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      uncachedTokens: 900,
    });
    expect(
      cache.request(
        [
          { id: 'small', tokens: 900 },
          { id: 'more', tokens: 400 },
        ],
        1_000,
      ).cacheReadTokens,
    ).toBe(0);
  });
});

// A segment id names its content, so equal ids carry equal token counts (the cache model relies on it).
const TOKENS_OF: Readonly<Record<string, number>> = { a: 0, b: 90, c: 700, d: 1_300, e: 2_200, f: 3_000 };
const segmentArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f').map((id) => ({ id, tokens: TOKENS_OF[id] ?? 0 }));
const promptArb = fc
  .array(segmentArb, { minLength: 1, maxLength: 8 })
  .map((rest) => [{ id: 'S', tokens: 1_500 }, ...rest]);
const rulesArb = fc.constantFrom<CacheRules>(
  ANTHROPIC,
  OPENAI,
  { kind: 'automatic', minTokens: 64, granularityTokens: 64, ttlMs: 3_600_000 },
  { kind: 'anthropic', minTokens: 512, ttlMs: 300_000 },
);
const scheduleArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 400_000 }), promptArb), {
  minLength: 1,
  maxLength: 12,
});

describe('properties', () => {
  // Deliberate bug it caught: counting the Anthropic write as `promptTokens` (not minus the read).
  it('read + write + uncached = prompt, read ≤ prompt', () => {
    fc.assert(
      fc.property(rulesArb, scheduleArb, (rules, schedule) => {
        const cache = new CacheSimulator(rules);
        let at = 0;
        for (const [gap, prompt] of schedule) {
          at += gap;
          const u = cache.request(prompt, at);
          if (u.cacheReadTokens + u.cacheWriteTokens + u.uncachedTokens !== u.promptTokens) return false;
          if (u.cacheReadTokens > u.promptTokens) return false;
        }
        return true;
      }),
    );
  });

  // Deliberate bug it caught: rounding the automatic read up instead of down (read above the common prefix).
  it('the same prompt again within the TTL reads all of it (rounded down, above the minimum)', () => {
    fc.assert(
      fc.property(rulesArb, promptArb, fc.integer({ min: 0, max: 299_000 }), (rules, prompt, gap) => {
        const cache = new CacheSimulator(rules);
        const first = cache.request(prompt, 0);
        const again = cache.request(prompt, gap);
        const total = first.promptTokens;
        const expected =
          rules.kind === 'anthropic'
            ? total >= rules.minTokens
              ? total
              : 0
            : Math.floor(total / rules.granularityTokens) * rules.granularityTokens;
        const floor = rules.kind === 'automatic' && expected < rules.minTokens ? 0 : expected;
        return again.cacheReadTokens === floor;
      }),
    );
  });

  // Deliberate bug it caught: entries dropped 150 s before their TTL (a read fell back to 0 after a longer gap).
  it('appending segments never reduces the next read while the entries are alive', () => {
    fc.assert(
      fc.property(
        rulesArb,
        promptArb,
        fc.array(fc.tuple(segmentArb, fc.integer({ min: 0, max: 200_000 })), { minLength: 1, maxLength: 6 }),
        (rules, base, appended) => {
          const cache = new CacheSimulator(rules);
          cache.request(base, 0);
          let prompt = base;
          let previousRead = -1;
          let at = 0;
          for (const [segment, gap] of appended) {
            at += gap;
            prompt = [...prompt, { id: `${segment.id}${at}`, tokens: segment.tokens }];
            const read = cache.request(prompt, at).cacheReadTokens;
            if (read < previousRead) return false;
            previousRead = read;
          }
          return true;
        },
      ),
    );
  });
});
