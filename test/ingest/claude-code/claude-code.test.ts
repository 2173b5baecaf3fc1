import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../../src/ingest/index.js';
import { SessionSchema, type Session } from '../../../src/session/model.js';

const ROOT = 'test/fixtures/claude-code/projects';

async function load(id: string, content: 'text' | 'sizes' = 'text'): Promise<Session> {
  const { sources } = await discoverSessions([ROOT]);
  const source = sources.find((s) => s.sessionId === id);
  if (source === undefined) throw new Error(`no session ${id}`);
  return SessionSchema.parse(await loadSession(source, { content }));
}

describe('Claude Code discovery', () => {
  it('finds main transcripts and attaches subagent files to their session', async () => {
    const { sources } = await discoverSessions([ROOT]);
    expect(sources.map((s) => [s.format, s.sessionId])).toEqual([
      ['claude-code', 'L1'],
      ['claude-code', 'S1'],
    ]);
    const s1 = sources[1];
    if (s1?.format !== 'claude-code') throw new Error('format');
    expect(s1.files.agentFiles.map((a) => a.agentId)).toEqual(['acompact-ff', 'aexplore1']);
  });

  it('reads a single transcript given by name', async () => {
    const { sources } = await discoverSessions([`${ROOT}/-home-me-app/L1.jsonl`]);
    expect(sources.map((s) => s.format)).toEqual(['claude-code']);
  });
});

describe('Claude Code session S1 (2.1.x)', () => {
  it('counts one request per response, keeping the last line of each', async () => {
    const session = await load('S1');
    const main = session.requests.filter((r) => r.agentId === null);
    expect(main.map((r) => r.usage?.outputTokens)).toEqual([180, 30, 4]);
    // msg_2 has no requestId: grouped by message.id alone, not counted twice.
    expect(main).toHaveLength(3);
    expect(main[0]?.usage).toEqual({
      promptTokens: 20503,
      uncachedInputTokens: 3,
      cacheReadTokens: 20000,
      cacheWriteTokens: 500,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 500,
      outputTokens: 180,
      reasoningTokens: null,
    });
    // No cache_creation object: the TTL split is unknown, not 5m.
    expect(main[1]?.usage?.cacheWrite5mTokens).toBeNull();
    expect(main[1]?.usage?.cacheWrite1hTokens).toBeNull();
    expect(main[2]?.model).toBe('claude-opus-4-1');
    expect(main.every((r) => r.provider === 'anthropic')).toBe(true);
  });

  it('attributes subagent traffic to its agent, once, and ignores progress copies and replayed requests', async () => {
    const session = await load('S1');
    const side = session.requests.filter((r) => r.agentId !== null);
    // acompact replays req_1 (already in the main file) and adds one summarisation request.
    expect(side.map((r) => [r.agentId, r.usage?.outputTokens])).toEqual([
      ['acompact-ff', 6000],
      ['aexplore1', 7],
    ]);
  });

  it('records the compact boundary with its summary, and the API error as an event', async () => {
    const session = await load('S1');
    const compaction = session.events.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({
      trigger: 'auto',
      tokensBefore: 167000,
      tokensAfter: 9000,
      tokenUnit: 'provider',
      summaryItemId: 's1',
      requestIndex: 2,
    });
    expect(session.items[compaction?.itemIndex ?? -1]?.kind).toBe('summary');
    expect(session.events.filter((e) => e.kind === 'model_error')).toHaveLength(1);
  });

  it('keeps text, tool calls and tool results as items with chars per the model contract', async () => {
    const session = await load('S1');
    expect(session.items.map((i) => i.kind)).toEqual([
      'user',
      'assistant',
      'assistant',
      'assistant',
      'tool_result',
      'assistant',
      'assistant',
      'summary',
      'assistant',
    ]);
    const call = session.items[3];
    expect(call?.kind === 'assistant' ? call.toolCalls : null).toEqual([
      { callId: 'toolu_1', name: 'Read', argsJson: '{"file_path":"/a.ts"}', argsStringified: true },
    ]);
    expect(call?.chars).toBe('Read'.length + '{"file_path":"/a.ts"}'.length);
    expect(session.items[4]).toMatchObject({
      kind: 'tool_result',
      callId: 'toolu_1',
      toolName: 'Read',
      text: 'line one\nline two',
      chars: 17,
    });
    expect(session.items[1]).toMatchObject({ thinkingChars: 3, chars: 0 });
    expect(session.requests[0]?.itemIndex).toBe(1);
    expect(session.requests[1]?.itemIndex).toBe(5);
    expect(session.title).toBe('Fix the parser');
    expect(session.project).toBe('/home/me/app');
  });

  it('reports the malformed line and the unknown record type, and reads on', async () => {
    const session = await load('S1');
    expect(session.issues.map((i) => [i.line, i.reason.split(' (')[0]])).toEqual([
      [14, 'malformed JSON'],
      [13, 'unknown record type "brand-new-record"'],
    ]);
  });

  it('keeps sizes without text in sizes mode', async () => {
    const text = await load('S1', 'text');
    const sizes = await load('S1', 'sizes');
    expect(sizes.items.map((i) => i.chars)).toEqual(text.items.map((i) => i.chars));
    expect(sizes.items.every((i) => i.text === null)).toBe(true);
  });
});

describe('Claude Code session L1 (1.0.x)', () => {
  it('attributes inline sidechain requests to their sidechain and records the legacy compaction', async () => {
    const session = await load('L1');
    expect(session.requests.map((r) => [r.agentId, r.model])).toEqual([
      ['sidechain:lsu', 'claude-sonnet-4-20250514'],
      [null, 'claude-opus-4-20250514'],
    ]);
    expect(session.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'summary']);
    expect(session.events).toEqual([
      {
        kind: 'compaction',
        itemIndex: 2,
        requestIndex: 2,
        timestampMs: Date.parse('2025-07-01T00:05:00.000Z'),
        trigger: 'unknown',
        tokensBefore: null,
        tokensAfter: null,
        tokenUnit: 'provider',
        summaryItemId: 'ls1',
      },
    ]);
  });
});
