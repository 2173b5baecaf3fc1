import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTokenCount, MAX_TOKENS_PER_REQUEST } from '../../src/ingest/token-count.js';
import { normalizeUsage } from '../../src/ingest/usage.js';
import { MeasuredUsageSchema } from '../../src/session/model.js';

describe('normalizeUsage', () => {
  it('keeps inclusive input as the prompt and derives the uncached part (engine.md §10)', () => {
    expect(
      normalizeUsage({ inputTokens: 13050, outputTokens: 96, cacheReadTokens: 11200, cacheWriteTokens: 1850 }),
    ).toEqual({
      usage: {
        promptTokens: 13050,
        uncachedInputTokens: 0,
        cacheReadTokens: 11200,
        cacheWriteTokens: 1850,
        cacheWrite5mTokens: null,
        cacheWrite1hTokens: null,
        outputTokens: 96,
        reasoningTokens: null,
      },
      problem: null,
    });
  });

  it('treats missing cache counters as zero and keeps reasoning tokens', () => {
    const { usage, problem } = normalizeUsage({ inputTokens: 500, outputTokens: 40, reasoningTokens: 12 });
    expect(problem).toBeNull();
    expect(usage).toMatchObject({
      promptTokens: 500,
      uncachedInputTokens: 500,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 12,
    });
  });

  it('reports no usage, and no problem, when the line has no token counts', () => {
    expect(normalizeUsage({})).toEqual({ usage: null, problem: null });
  });

  it('repairs read + write above the inclusive input: prompt = read + write, nothing uncached, reported', () => {
    const { usage, problem } = normalizeUsage({
      inputTokens: 1500,
      outputTokens: 20,
      cacheReadTokens: 1000,
      cacheWriteTokens: 800,
    });
    expect(usage).toMatchObject({
      promptTokens: 1800,
      uncachedInputTokens: 0,
      cacheReadTokens: 1000,
      cacheWriteTokens: 800,
    });
    expect(problem).toBe('cache read + write (1800) exceed the inclusive inputTokens (1500); prompt taken as 1800');
  });

  it('a value that is not a token count makes the usage invalid: no usage (never priced), one problem', () => {
    const { usage, problem, invalid } = normalizeUsage({
      inputTokens: -5,
      outputTokens: '7',
      cacheReadTokens: 0,
      cacheWriteTokens: 2,
    });
    expect(usage).toBeNull();
    expect(invalid).toBe(true);
    expect(problem).toMatch(/^usage invalid: /);
    expect(problem).toContain('inputTokens is not a token count (-5)');
    expect(problem).toContain('outputTokens is not a token count (the string "7")');
  });

  it('huge, unsafe, fractional and implausible counts are invalid, not Infinity or a rounded number', () => {
    for (const bad of [
      1e308,
      2 ** 53 + 2,
      2 ** 53,
      1.5,
      Number.NaN,
      MAX_TOKENS_PER_REQUEST + 1,
      [[[1]]],
      { n: 1 },
      true,
    ]) {
      const reading = normalizeUsage({ inputTokens: 1000, outputTokens: bad, cacheReadTokens: 10 });
      expect(reading.usage, String(bad)).toBeNull();
      expect(reading.invalid).toBe(true);
      expect(reading.problem).not.toContain('\n');
    }
    // Counts each within the bound whose inclusive prompt is not are invalid too.
    const sum = normalizeUsage({
      inputTokens: undefined,
      outputTokens: 1,
      cacheReadTokens: 90_000_000,
      cacheWriteTokens: 90_000_000,
    });
    expect(sum.usage).toBeNull();
    expect(sum.problem).toMatch(/^usage invalid: prompt of 180000000 tokens/);
    expect(normalizeUsage({ inputTokens: MAX_TOKENS_PER_REQUEST, outputTokens: 0 }).usage?.promptTokens).toBe(
      MAX_TOKENS_PER_REQUEST,
    );
  });

  // Deliberate bug checked once: leaving `reasoningTokens` out of the invalid-count test (it is read
  // on its own, after the four others) lets a line with reasoning 1.5 be priced, and this fails.
  it('any present value that is not a count makes the usage invalid, naming each such field in order', () => {
    const value = fc.oneof(
      fc.nat(200_000),
      fc.constantFrom(undefined, null, -1, -0, 1.5, '7', 1e308, 2 ** 53, MAX_TOKENS_PER_REQUEST + 1, [], {}),
    );
    fc.assert(
      fc.property(value, value, value, value, value, (a, b, c, d, e) => {
        const raw = { inputTokens: a, outputTokens: b, cacheReadTokens: c, cacheWriteTokens: d, reasoningTokens: e };
        const reasons = Object.entries(raw).flatMap(([field, v]) => {
          if (v === undefined || v === null) return [];
          const checked = checkTokenCount(field, v);
          return checked.ok ? [] : [checked.reason];
        });
        const reading = normalizeUsage(raw);
        if (reasons.length > 0) {
          expect(reading).toEqual({ usage: null, problem: `usage invalid: ${reasons.join('; ')}`, invalid: true });
        } else {
          expect(reading.invalid).toBeUndefined();
        }
      }),
      { numRuns: 500 },
    );
  });

  // Deliberate bug checked once: computing `uncachedInputTokens = input − read` (forgetting the
  // writes, the "double count" of engine.md §10) breaks the schema's sum and fails this property.
  it('always satisfies the MeasuredUsage schema, and a clean line never changes inputTokens', () => {
    const count = fc.oneof(fc.nat(2_000_000), fc.constant(undefined));
    fc.assert(
      fc.property(
        count,
        count,
        count,
        count,
        count,
        (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens) => {
          const { usage, problem } = normalizeUsage({
            inputTokens,
            outputTokens,
            cacheReadTokens,
            cacheWriteTokens,
            reasoningTokens,
          });
          if (usage === null) return;
          expect(MeasuredUsageSchema.safeParse(usage).success).toBe(true);
          expect(usage.promptTokens).toBeGreaterThanOrEqual((cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0));
          if (problem === null) expect(usage.promptTokens).toBe(inputTokens);
        },
      ),
    );
  });
});
