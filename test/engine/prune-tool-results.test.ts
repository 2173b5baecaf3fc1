import { describe, expect, it } from 'vitest';
import { PruneState, prunedToolResultText, pruneHistoryToolResults } from '../../src/engine/index.js';
import type { HistoryMessage, ToolResultPart } from '../../src/engine/index.js';
import { assistant, text, tool, user } from './support/messages.js';

const results = (messages: readonly HistoryMessage[]) =>
  messages.flatMap((m) =>
    m.parts.filter((p): p is ToolResultPart => p.type === 'tool').map((p) => `${p.id}=${p.result.length}`),
  );

describe('pruneHistoryToolResults (engine.md §5.6)', () => {
  it('under budget: nothing changes, everything freezes, messages pass by reference', () => {
    const state = new PruneState();
    const history = [
      user('u1'),
      assistant('a1', [text('reading'), tool('t1', 'x'.repeat(100))]),
      user('u2'),
      assistant('a2', [tool('t2', 'y'.repeat(50))]),
    ];
    const outcome = pruneHistoryToolResults(history, state, 200);
    expect(outcome.messages).toEqual(history);
    outcome.messages.forEach((m, i) => expect(m).toBe(history[i]));
    expect(outcome.stats).toEqual({
      candidateCount: 2,
      replacedCount: 0,
      newlyReplacedCount: 0,
      charsBefore: 150,
      charsAfter: 150,
    });
    expect(state.isFrozen('t1') && state.isFrozen('t2')).toBe(true);
  });

  it('over budget: replaces the largest fresh results first, never the last assistant message', () => {
    const state = new PruneState();
    const history = [
      user('u1'),
      assistant('a1', [tool('small', 's'.repeat(100)), tool('big', 'b'.repeat(1_000))]),
      assistant('a2', [tool('mid', 'm'.repeat(500))]),
      assistant('a3', [tool('newest', 'n'.repeat(5_000))]),
    ];
    const outcome = pruneHistoryToolResults(history, state, 5_700);
    // 100 + 1000 + 500 + 5000 = 6600 > 5700: "big" goes (5600 fits); "newest" is protected.
    expect(results(outcome.messages)).toEqual([
      'small=100',
      `big=${prunedToolResultText('big', 1_000).length}`,
      'mid=500',
      'newest=5000',
    ]);
    expect(outcome.messages[1]?.parts[1]).toEqual(tool('big', prunedToolResultText('big', 1_000)));
    expect(outcome.messages[0]).toBe(history[0]);
    expect(outcome.messages[1]).not.toBe(history[1]);
    expect(outcome.messages[1]?.parts[0]).toBe(history[1]?.parts[0]);
    expect(outcome.messages[2]).toBe(history[2]);
    expect(outcome.newlyReplaced).toEqual([{ id: 'big', name: 'read', args: {}, sizeChars: 1_000 }]);
    expect(state.replacementFor('big')).toBe(prunedToolResultText('big', 1_000));
    expect(state.isFrozen('newest')).toBe(true);
  });

  it('re-applies a replacement on later sends and keeps frozen results whole, whatever the budget', () => {
    const state = new PruneState();
    const first = [
      user('u1'),
      assistant('a1', [tool('t1', 'x'.repeat(1_000))]),
      assistant('a2', [tool('t2', 'y'.repeat(1_000))]),
    ];
    pruneHistoryToolResults(first, state, 1_500);
    expect(state.replacementFor('t1')).toBeDefined();
    expect(state.isFrozen('t2')).toBe(true);
    const second = [...first, user('u2'), assistant('a3', [tool('t3', 'z'.repeat(10))])];
    const outcome = pruneHistoryToolResults(second, state, 0);
    expect(results(outcome.messages)).toEqual([`t1=${prunedToolResultText('t1', 1_000).length}`, 't2=1000', 't3=10']);
    expect(outcome.stats).toMatchObject({ replacedCount: 1, newlyReplacedCount: 0 });
  });

  it('budget 0 prunes every eligible fresh result', () => {
    const state = new PruneState();
    const history = [assistant('a1', [tool('t1', 'x')]), user('u'), assistant('a2', [tool('t2', 'y')])];
    expect(pruneHistoryToolResults(history, state, 0).stats.newlyReplacedCount).toBe(1);
  });

  it('ignores empty results, user messages and non-tool parts', () => {
    const state = new PruneState();
    const history: HistoryMessage[] = [
      { id: 'u', role: 'user', parts: [tool('in-user', 'q'.repeat(999))] },
      assistant('a1', [tool('empty', ''), text('t'.repeat(999))]),
      assistant('a2', [text('end')]),
    ];
    expect(pruneHistoryToolResults(history, state, 0).stats.candidateCount).toBe(0);
  });
});
