import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../../src/ingest/index.js';
import { SessionSchema, type Session } from '../../../src/session/model.js';

const ROOT = 'test/fixtures/codex';

async function load(): Promise<Session> {
  const { sources } = await discoverSessions([ROOT]);
  expect(sources.map((s) => [s.format, s.sessionId])).toEqual([['codex', '0190aaaa-0000-7000-8000-000000000001']]);
  const source = sources[0];
  if (source === undefined) throw new Error('no session');
  return SessionSchema.parse(await loadSession(source, { content: 'text' }));
}

describe('Codex rollout', () => {
  it('skips info:null and repeated totals, and keeps every request across a resume that resets the total', async () => {
    const session = await load();
    expect(session.requests.map((r) => r.usage?.promptTokens)).toEqual([1000, 1100, 1200, 300]);
    expect(session.requests.map((r) => r.model)).toEqual([
      'gpt-5-codex',
      'gpt-5-codex',
      'gpt-5.1-codex',
      'gpt-5.1-codex',
    ]);
  });

  it('normalizes OpenAI usage: input includes cached, reasoning inside output, no writes', async () => {
    const session = await load();
    expect(session.requests[0]?.usage).toEqual({
      promptTokens: 1000,
      uncachedInputTokens: 1000,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      outputTokens: 50,
      reasoningTokens: 20,
    });
    expect(session.requests[1]?.usage).toMatchObject({
      promptTokens: 1100,
      uncachedInputTokens: 200,
      cacheReadTokens: 900,
      outputTokens: 10,
    });
    expect(session.requests[0]?.provider).toBe('openai');
  });

  it('places each request before its response items, whether the token_count precedes or follows them', async () => {
    const session = await load();
    expect(session.items.map((i) => i.kind)).toEqual([
      'system',
      'user',
      'assistant',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'summary',
    ]);
    // token_count before its response (0.57): the request precedes the reasoning and the call.
    expect(session.requests[0]?.itemIndex).toBe(2);
    // token_count after its response: the request precedes the assistant message it produced.
    expect(session.requests[1]?.itemIndex).toBe(5);
    expect(session.items[3]).toMatchObject({
      toolCalls: [{ callId: 'call_1', name: 'shell', argsJson: '{"cmd":"ls"}' }],
      chars: 5 + 12,
    });
    expect(session.items[4]).toMatchObject({ kind: 'tool_result', callId: 'call_1', toolName: 'shell', text: 'a.ts' });
  });

  it('records the compacted item as a compaction with its summary; the first session_meta names the project', async () => {
    const session = await load();
    expect(session.events).toEqual([
      {
        kind: 'compaction',
        itemIndex: 7,
        requestIndex: 3,
        timestampMs: Date.parse('2026-01-02T12:00:03.000Z'),
        trigger: 'unknown',
        tokensBefore: null,
        tokensAfter: null,
        tokenUnit: 'provider',
        summaryItemId: expect.any(String),
      },
    ]);
    expect(session.project).toBe('/home/me/app');
  });

  it('reports the bad line and the unknown event type', async () => {
    const session = await load();
    expect(session.issues.map((i) => [i.line, i.reason.split(' (')[0]])).toEqual([
      [21, 'malformed JSON'],
      [20, 'unknown record type "event_msg/something_new"'],
    ]);
  });
});
