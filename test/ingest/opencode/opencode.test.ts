import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../../src/ingest/index.js';
import { SessionSchema } from '../../../src/session/model.js';

describe('opencode JSON storage', () => {
  it('reads session, messages and parts: uncached input apart from cache, reasoning billed as output, compaction recorded', async () => {
    const { sources } = await discoverSessions(['test/fixtures/opencode']);
    expect(sources.map((s) => [s.format, s.sessionId])).toEqual([['opencode', 'ses_1']]);
    const source = sources[0];
    if (source === undefined) throw new Error('no session');
    const session = SessionSchema.parse(await loadSession(source, { content: 'text' }));
    expect(session.title).toBe('Add a test');
    expect(session.project).toBe('/home/me/app');
    // msg_5 has only zero tokens: no request (ccusage counts the same way).
    expect(session.requests.map((r) => [r.agentId, r.model, r.provider])).toEqual([
      [null, 'claude-sonnet-4-5', 'anthropic'],
      ['compaction', 'claude-sonnet-4-5', 'anthropic'],
    ]);
    expect(session.requests[0]?.usage).toEqual({
      promptTokens: 88 + 524 + 10745,
      uncachedInputTokens: 88,
      cacheReadTokens: 524,
      cacheWriteTokens: 10745,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      outputTokens: 50,
      reasoningTokens: 10,
    });
    expect(session.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool_result', 'summary']);
    expect(session.items[1]).toMatchObject({
      toolCalls: [{ callId: 'toolu_9', name: 'read', argsJson: '{"filePath":"/a.ts"}' }],
      thinkingChars: 4,
    });
    expect(session.items[2]).toMatchObject({ text: 'export {}', chars: 9, toolName: 'read' });
    expect(session.events).toMatchObject([
      {
        kind: 'compaction',
        trigger: 'auto',
        itemIndex: 3,
        requestIndex: 2,
        summaryItemId: 'msg_4',
        tokenUnit: 'provider',
      },
    ]);
    expect(session.issues.map((i) => i.reason.split(' (')[0])).toEqual(['malformed JSON']);
  });
});
