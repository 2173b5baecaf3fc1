import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCodexSession, type CodexRecord } from '../../../src/ingest/codex/index.js';

type Call = {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly doubled: boolean;
  readonly resumeBefore: boolean;
};

const usage = (input: number, cached: number, output: number) => ({
  inputTokens: input,
  cachedInputTokens: cached,
  cacheWriteTokens: undefined,
  outputTokens: output,
  reasoningTokens: 0,
  totalTokens: input + output,
});

describe('Codex token_count events (property)', () => {
  // Checked against a deliberate bug: not skipping a repeated total (the doubled event is then
  // counted as a second request) fails this property.
  it('every call is one request with its own usage, whatever the doubling and the resumes', () => {
    const call = fc
      .record({
        input: fc.integer({ min: 1, max: 100_000 }),
        cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
        output: fc.integer({ min: 1, max: 5000 }),
        doubled: fc.boolean(),
        resumeBefore: fc.boolean(),
      })
      .map(({ cachedShare, ...c }): Call => ({ ...c, cached: Math.floor(c.input * cachedShare) }));
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), (calls) => {
        const records: { line: number; record: CodexRecord }[] = [];
        let total = usage(0, 0, 0);
        for (const c of calls) {
          if (c.resumeBefore) total = usage(0, 0, 0);
          total = usage(
            (total.inputTokens ?? 0) + c.input,
            (total.cachedInputTokens ?? 0) + c.cached,
            (total.outputTokens ?? 0) + c.output,
          );
          const event: CodexRecord = {
            kind: 'token_count',
            timestampMs: records.length,
            total,
            last: usage(c.input, c.cached, c.output),
            model: null,
          };
          records.push({ line: records.length + 1, record: event });
          if (c.doubled) records.push({ line: records.length + 1, record: event });
        }
        const session = buildCodexSession({ sessionId: 'S', file: 'S.jsonl', records, issues: [] });
        expect(
          session.requests.map((r) => [r.usage?.promptTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens]),
        ).toEqual(calls.map((c) => [c.input, c.cached, c.output]));
        expect(session.issues).toEqual([]);
      }),
    );
  });
});
