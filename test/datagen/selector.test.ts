/**
 * The generator's copies of FreeCode's two trims: `selectForCompaction` (engine.md §2.2, newest
 * test vectors) and `keepLastNUserTurns` (§2.3), with properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  keepLastNUserTurns,
  NEWEST_SELECTION,
  selectForCompaction,
  type MemoryMessage,
} from '../../src/datagen/selector.js';

function messages(spec: string, tokens = 100): MemoryMessage[] {
  return spec.split(' ').map((name, i) => ({
    id: name,
    role: name.startsWith('u') ? 'user' : 'assistant',
    content: name,
    timestamp: i,
    tokenCount: name.endsWith('*') ? 50_000 : tokens,
  }));
}

const ids = (list: readonly MemoryMessage[]): string[] => list.map((m) => m.id);

describe('selectForCompaction (newest, §2.2 vectors)', () => {
  it('[u1,a2,u3,a4,u5,a6] → summarize [a2], preserve [u1,u3,a4,u5,a6]', () => {
    const s = selectForCompaction(messages('u1 a2 u3 a4 u5 a6'), NEWEST_SELECTION);
    expect(ids(s.summarize)).toEqual(['a2']);
    expect(ids(s.preserve)).toEqual(['u1', 'u3', 'a4', 'u5', 'a6']);
  });

  it('a 50,000-token head is summarized, preserve starts at u3', () => {
    const s = selectForCompaction(messages('u1* a2 u3 a4 u5 a6'), NEWEST_SELECTION);
    expect(ids(s.summarize)).toEqual(['u1*', 'a2']);
    expect(ids(s.preserve)).toEqual(['u3', 'a4', 'u5', 'a6']);
  });

  it('[u1,a2] → nothing to summarize', () => {
    expect(selectForCompaction(messages('u1 a2'), NEWEST_SELECTION).summarize).toEqual([]);
  });

  it('drops from the front above 8,000 tokens: the preserved block may start on an assistant message', () => {
    const list = messages('u1 a2 u3 a4 a5 a6', 3_000).map((m) => (m.id === 'u1' ? { ...m, tokenCount: 100 } : m));
    const s = selectForCompaction(list, NEWEST_SELECTION);
    expect(ids(s.preserve)).toEqual(['u1', 'a5', 'a6']);
    expect(ids(s.summarize)).toEqual(['a2', 'u3', 'a4']);
  });

  it('with no user message falls back to the last two messages', () => {
    const s = selectForCompaction(messages('a1 a2 a3 a4'), NEWEST_SELECTION);
    expect(ids(s.preserve)).toEqual(['a3', 'a4']);
  });

  // Deliberate bug it caught: the carve-out moving the head without removing it from `summarize` (duplicated).
  it('property: summarize + preserve is the history, each message once (head carve-out aside, order kept)', () => {
    const history = fc.array(fc.record({ user: fc.boolean(), tokens: fc.integer({ min: 0, max: 6_000 }) }), {
      maxLength: 25,
    });
    fc.assert(
      fc.property(history, (spec) => {
        const list: MemoryMessage[] = spec.map((m, i) => ({
          id: `m${i}`,
          role: m.user ? 'user' : 'assistant',
          content: '',
          timestamp: i,
          tokenCount: m.tokens,
        }));
        const s = selectForCompaction(list, NEWEST_SELECTION);
        const all = [...s.summarize, ...s.preserve].map((m) => m.id).sort();
        return (
          JSON.stringify(all) === JSON.stringify(list.map((m) => m.id).sort()) &&
          s.summarizeTokenCount + s.preserveTokenCount === list.reduce((n, m) => n + m.tokenCount, 0)
        );
      }),
    );
  });
});

describe('keepLastNUserTurns (newest, §2.3)', () => {
  const store = (spec: string): { id: string; role: string }[] =>
    spec.split(' ').map((id) => ({ id, role: id.startsWith('u') ? 'user' : 'assistant' }));

  it('keeps from the second-to-last user message', () => {
    expect(keepLastNUserTurns(store('u1 a1 u2 a2 a3 u3 a4'), 2).map((m) => m.id)).toEqual([
      'u2',
      'a2',
      'a3',
      'u3',
      'a4',
    ]);
  });

  it('headless fallback: the first prompt and the last two assistant messages', () => {
    expect(keepLastNUserTurns(store('u1 a1 a2 a3 a4'), 2).map((m) => m.id)).toEqual(['u1', 'a3', 'a4']);
  });

  // Deliberate bug it caught: counting the n-th user message from the front instead of from the back.
  it('property: with at least n user messages the kept tail starts at a user message and holds exactly n of them', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 30 }), fc.integer({ min: 1, max: 4 }), (roles, n) => {
        const list = roles.map((user, i) => ({ id: String(i), role: user ? 'user' : 'assistant' }));
        const users = list.filter((m) => m.role === 'user').length;
        const kept = keepLastNUserTurns(list, n);
        if (users < n) return true;
        return (
          kept[0]?.role === 'user' &&
          kept.filter((m) => m.role === 'user').length === n &&
          kept[kept.length - 1] === list[list.length - 1]
        );
      }),
    );
  });
});
