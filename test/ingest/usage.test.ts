import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeUsage } from '../../src/ingest/usage.js';
import { MeasuredUsageSchema } from '../../src/session/model.js';

describe('normalizeUsage', () => {
  it('keeps inclusive input as the prompt and derives the uncached part (engine.md §10)', () => {
    expect(normalizeUsage({ inputTokens: 13050, outputTokens: 96, cacheReadTokens: 11200, cacheWriteTokens: 1850 })).toEqual({
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
    expect(usage).toMatchObject({ promptTokens: 500, uncachedInputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 12 });
  });

  it('reports no usage, and no problem, when the line has no token counts', () => {
    expect(normalizeUsage({})).toEqual({ usage: null, problem: null });
  });

  it('repairs read + write above the inclusive input: prompt = read + write, nothing uncached, reported', () => {
    const { usage, problem } = normalizeUsage({ inputTokens: 1500, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 800 });
    expect(usage).toMatchObject({ promptTokens: 1800, uncachedInputTokens: 0, cacheReadTokens: 1000, cacheWriteTokens: 800 });
    expect(problem).toBe('cache read + write (1800) exceed the inclusive inputTokens (1500); prompt taken as 1800');
  });

  it('treats a value that is not a token count as absent and says so', () => {
    const { usage, problem } = normalizeUsage({ inputTokens: -5, outputTokens: '7', cacheReadTokens: 0, cacheWriteTokens: 2 });
    expect(usage).toMatchObject({ promptTokens: 2, outputTokens: 0 });
    expect(problem).toContain('inputTokens is not a token count (-5)');
    expect(problem).toContain('outputTokens is not a token count ("7")');
  });

  // Deliberate bug checked once: computing `uncachedInputTokens = input − read` (forgetting the
  // writes, the "double count" of engine.md §10) breaks the schema's sum and fails this property.
  it('always satisfies the MeasuredUsage schema, and a clean line never changes inputTokens', () => {
    const count = fc.oneof(fc.nat(2_000_000), fc.constant(undefined));
    fc.assert(
      fc.property(count, count, count, count, count, (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens) => {
        const { usage, problem } = normalizeUsage({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens });
        if (usage === null) return;
        expect(MeasuredUsageSchema.safeParse(usage).success).toBe(true);
        expect(usage.promptTokens).toBeGreaterThanOrEqual((cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0));
        if (problem === null) expect(usage.promptTokens).toBe(inputTokens);
      }),
    );
  });
});
