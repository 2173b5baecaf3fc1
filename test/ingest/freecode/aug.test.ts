import { describe, expect, it } from 'vitest';
import { loadOne } from './load.js';

const HOME = 'test/fixtures/freecode/home-aug';

describe('an Aug-version session (2026-08-10: turn.started after the response, no callId, cacheCreationInputTokens)', () => {
  it('finds two user messages from the turn-0 requests although turn.started follows the response', async () => {
    const session = await loadOne(HOME);
    expect(session.issues).toEqual([]);
    const users = session.items.filter((i) => i.kind === 'user');
    expect(users.map((u) => [u.text, u.synthetic])).toEqual([
      ['List the failing tests and fix the first one.', null],
      ['Go ahead.', null],
    ]);
  });

  it('reads writes from cacheCreationInputTokens in the store and cacheWriteTokens in the rollout, and they agree', async () => {
    const session = await loadOne(HOME);
    expect(
      session.requests.map((r) => [
        r.usage?.promptTokens,
        r.usage?.cacheReadTokens,
        r.usage?.cacheWriteTokens,
        r.usage?.uncachedInputTokens,
      ]),
    ).toEqual([
      [12000, 0, 11500, 500],
      [12400, 11500, 900, 0],
      [12600, 12400, 200, 0],
      [12800, 12600, 200, 0],
    ]);
  });

  it('keeps one response stored as several lines together: text line, then one line per tool call (§7.4)', async () => {
    const session = await loadOne(HOME);
    const first = session.items.slice(1, 6);
    expect(first.map((i) => i.kind)).toEqual(['assistant', 'assistant', 'tool_result', 'assistant', 'tool_result']);
    const responseIds = new Set(first.flatMap((i) => (i.kind === 'assistant' ? [i.responseId] : [])));
    expect(responseIds.size).toBe(1);
    // No provider ids in Aug logs: calls get FreeCode's derived id tool-<messageId>-<partIndex> (§7.3).
    expect(first[1]).toMatchObject({
      toolCalls: [
        { callId: 'tool-11111111-aaaa-4aaa-8aaa-000000000003-0', name: 'bash', argsJson: '{"command":"npm test"}' },
      ],
    });
    expect(first[2]).toMatchObject({
      kind: 'tool_result',
      callId: 'tool-11111111-aaaa-4aaa-8aaa-000000000003-0',
      toolName: 'bash',
    });
    expect(first[3]).toMatchObject({
      toolCalls: [{ callId: 'tool-11111111-aaaa-4aaa-8aaa-000000000004-0', name: 'read' }],
    });
    expect(session.requests.map((r) => r.itemIndex)).toEqual([1, 6, 8, 10]);
  });

  it('starts a tool-only response with its tool line (usage on the first line written, §7.4 step 3)', async () => {
    const session = await loadOne(HOME);
    expect(session.items[8]).toMatchObject({ kind: 'assistant', text: '', toolCalls: [{ name: 'edit' }] });
  });

  it('finds the whole session from one of its files inside a FreeCode home', async () => {
    const joined = await loadOne(HOME);
    const storeOnly = await loadOne(
      `${HOME}/sessions/home__dev__my_h_app/a1b2c3d4-0000-4000-8000-000000000001/messages.jsonl`,
    );
    // Pointing at a file inside a FreeCode home finds the rest of the session there (discover.ts).
    expect(storeOnly).toEqual(joined);
  });
});
