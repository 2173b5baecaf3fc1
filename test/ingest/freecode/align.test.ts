import { describe, expect, it } from 'vitest';
import { alignStore } from '../../../src/ingest/freecode/align.js';
import type { StoreMessage } from '../../../src/ingest/freecode/store.js';
import type { RolloutResponse } from '../../../src/ingest/freecode/timeline.js';
import type { MeasuredUsage } from '../../../src/session/model.js';

function usage(promptTokens: number): MeasuredUsage {
  return {
    promptTokens,
    uncachedInputTokens: promptTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite5mTokens: null,
    cacheWrite1hTokens: null,
    outputTokens: 1,
    reasoningTokens: null,
  };
}

function response(
  eventId: string,
  promptTokens: number | null,
  textChars: number,
  tools: string[] = [],
): RolloutResponse {
  return {
    eventId,
    line: 0,
    timestampMs: 0,
    respondedAtMs: 0,
    model: 'm',
    provider: null,
    usage: promptTokens === null ? null : usage(promptTokens),
    toolCallNames: tools,
    textChars,
    thinkingChars: 0,
    promptChars: null,
    calls: [],
  };
}

function textLine(id: string, text: string, promptTokens: number | null): StoreMessage {
  return {
    line: 0,
    id,
    role: 'assistant',
    synthetic: null,
    parts: [{ kind: 'text', text, chars: text.length }],
    timestampMs: 0,
    usage: promptTokens === null ? null : usage(promptTokens),
    interrupted: false,
    parentId: null,
  };
}

function toolLine(id: string, name: string, promptTokens: number | null): StoreMessage {
  return {
    line: 0,
    id,
    role: 'assistant',
    synthetic: null,
    parts: [{ kind: 'tool', partIndex: 0, name, argsJson: '{}', result: '', resultChars: 0 }],
    timestampMs: 0,
    usage: promptTokens === null ? null : usage(promptTokens),
    interrupted: false,
    parentId: null,
  };
}

describe('alignStore', () => {
  // Deliberate bug checked once: not comparing usage numbers (align.ts slotMatches) matches the
  // store's last line to r3, the latest response of the same shape, and fails this test.
  it('uses equal usage numbers to find where the store ends when shapes repeat', () => {
    const [r1, r2, r3] = [response('r1', 100, 2), response('r2', 200, 2), response('r3', 300, 2)];
    const alignment = alignStore([r1, r2, r3], [textLine('s2', 'ok', 200)]);
    expect(alignment.matches.get(r2)?.text?.id).toBe('s2');
    expect(alignment.matches.has(r3)).toBe(false);
    expect(alignment.unmatched).toEqual([]);
  });

  it('matches usage-less stores by shape: text length and tool names, one line per call (§7.4)', () => {
    const [r1, r2] = [response('r1', 100, 5, ['read', 'bash']), response('r2', 200, 3)];
    const store = [
      textLine('a', 'hello', null),
      toolLine('b', 'read', null),
      toolLine('c', 'bash', null),
      textLine('d', 'bye', null),
    ];
    const alignment = alignStore([r1, r2], store);
    expect(alignment.matches.get(r1)).toMatchObject({ text: { id: 'a' }, calls: [{ id: 'b' }, { id: 'c' }] });
    expect(alignment.matches.get(r2)).toMatchObject({ text: { id: 'd' }, calls: [] });
  });

  it('leaves the older store lines that disagree with the rollout unmatched', () => {
    const [r1, r2] = [response('r1', 100, 5), response('r2', 200, 3)];
    const alignment = alignStore([r1, r2], [textLine('x', 'something else', null), textLine('d', 'bye', 200)]);
    expect(alignment.matches.get(r2)?.text?.id).toBe('d');
    expect(alignment.unmatched.map((m) => m.id)).toEqual(['x']);
  });

  it('matches nothing when the last store line fits no response', () => {
    const alignment = alignStore([response('r1', 100, 5)], [textLine('x', 'other', 999)]);
    expect(alignment.matches.size).toBe(0);
    expect(alignment.unmatched.map((m) => m.id)).toEqual(['x']);
  });
});
