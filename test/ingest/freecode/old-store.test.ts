import { describe, expect, it } from 'vitest';
import { loadOne } from './load.js';

describe('a store written before 2026-08-05, alone (no usage, no rollout)', () => {
  it('groups lines into responses with one tool call per response (RC2 era) and leaves usage unknown', async () => {
    const session = await loadOne('test/fixtures/freecode/old-store');
    expect(session.issues).toEqual([]);
    expect(session.items.map((i) => i.kind)).toEqual([
      'user',
      'assistant',
      'assistant',
      'tool_result',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'assistant',
      'tool_result',
      'assistant',
    ]);
    // [text + read] [grep] [text] | [edit] [text]
    expect(session.requests.map((r) => r.itemIndex)).toEqual([1, 4, 6, 8, 10]);
    expect(
      session.requests.every((r) => r.usage === null && r.model === 'MiniMax-M3' && r.provider === 'minimax'),
    ).toBe(true);
    expect(session.items[2]).toMatchObject({ responseId: '22222222-bbbb-4bbb-8bbb-000000000002' });
    expect(session.items[4]).toMatchObject({ responseId: '22222222-bbbb-4bbb-8bbb-000000000004' });
    expect(session.project).toBe('/home/dev/slow-build');
  });
});
