import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildClaudeSession, parseClaudeLine } from '../../../src/ingest/claude-code/index.js';

type Response = { readonly messageId: string; readonly requestId: string | null; readonly outputs: readonly number[] };

function line(r: Response, output: number, n: number): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `u${n}`,
    isSidechain: false,
    timestamp: '2026-01-01T00:00:00.000Z',
    ...(r.requestId === null ? {} : { requestId: r.requestId }),
    message: {
      id: r.messageId,
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'x' }],
      usage: { input_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 3, output_tokens: output },
    },
  });
}

describe('Claude Code response dedupe (property)', () => {
  // Checked against deliberate bugs: keeping the first line of a group (ccusage's TypeScript
  // rule), or the last one in file order, instead of the largest makes this property fail on a
  // response whose lines do not grow.
  it("one request per (message.id, requestId) group, whose output is the group's largest, however lines interleave", () => {
    const responses = fc.uniqueArray(
      fc.record({
        messageId: fc.constantFrom('msg_a', 'msg_b', 'msg_c', 'msg_d'),
        requestId: fc.option(fc.constantFrom('req_1', 'req_2'), { nil: null }),
        outputs: fc.array(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 5 }),
      }),
      { selector: (r) => `${r.messageId}|${r.requestId ?? ''}`, minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(responses, fc.array(fc.nat(), { maxLength: 40 }), (rs, picks) => {
        // Interleave the lines of the responses, keeping each response's own line order.
        const cursors = rs.map(() => 0);
        const order: { r: Response; output: number }[] = [];
        let pick = 0;
        while (order.length < rs.reduce((n, r) => n + r.outputs.length, 0)) {
          const open = rs.map((_, i) => i).filter((i) => (cursors[i] ?? 0) < (rs[i]?.outputs.length ?? 0));
          const i = open[(picks[pick++ % Math.max(1, picks.length)] ?? 0) % open.length] ?? 0;
          const r = rs[i];
          if (r === undefined) break;
          order.push({ r, output: r.outputs[cursors[i] ?? 0] ?? 0 });
          cursors[i] = (cursors[i] ?? 0) + 1;
        }
        const records = order.map(({ r, output }, n) => {
          const result = parseClaudeLine({ number: n + 1, text: line(r, output, n), terminated: true }, 'sizes');
          if (result.kind !== 'record') throw new Error('unparsed');
          return { line: n + 1, record: result.record };
        });
        const session = buildClaudeSession(
          {
            sessionId: 'S',
            files: [{ file: 'S.jsonl', agentId: null, records }],
            issues: [],
            parentSessionId: null,
            projectDir: null,
          },
          { content: 'sizes' },
        );
        // A missing requestId falls back to message.id: (msg_a, null) is its own group.
        expect(session.requests).toHaveLength(rs.length);
        // Every line has a prompt of 6, so a group's usage is reported; its largest output wins (§1.4).
        const expected = new Map(rs.map((r) => [`${r.messageId}|${r.requestId ?? ''}`, Math.max(...r.outputs)]));
        const firstSeen = [...new Set(order.map(({ r }) => `${r.messageId}|${r.requestId ?? ''}`))];
        expect(session.requests.map((q) => q.usage?.outputTokens)).toEqual(firstSeen.map((k) => expected.get(k)));
        expect(session.requests.every((q) => q.usage?.promptTokens === 6)).toBe(true);
      }),
    );
  });
});

describe('Claude Code response with a line of invalid counts', () => {
  // The lines of one response; a negative output count is not a count (the usage is invalid).
  const response: Response = { messageId: 'msg_a', requestId: 'req_1', outputs: [] };
  const VALID = 40;
  const INVALID = -5;

  it('has no usage, whichever line comes first, and the invalid line is the only issue', () => {
    for (const outputs of [
      [VALID, INVALID],
      [INVALID, VALID],
      [VALID, INVALID, VALID],
    ]) {
      const issues: { file: string; line: number; reason: string }[] = [];
      const records = outputs.map((output, n) => {
        const result = parseClaudeLine({ number: n + 1, text: line(response, output, n), terminated: true }, 'usage');
        if (result.kind !== 'record') throw new Error('unparsed');
        if (result.problem !== null) issues.push({ file: 'S.jsonl', line: n + 1, reason: result.problem });
        return { line: n + 1, record: result.record };
      });
      const session = buildClaudeSession(
        {
          sessionId: 'S',
          files: [{ file: 'S.jsonl', agentId: null, records }],
          issues,
          parentSessionId: null,
          projectDir: null,
        },
        { content: 'usage' },
      );
      expect(session.requests).toHaveLength(1);
      expect(session.requests[0]?.usage).toBeNull();
      expect(session.issues.map((issue) => issue.line)).toEqual([outputs.indexOf(INVALID) + 1]);
      expect(session.issues[0]?.reason).toMatch(/^usage invalid/);
    }
  });
});
