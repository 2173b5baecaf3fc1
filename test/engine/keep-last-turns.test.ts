import { describe, expect, it } from 'vitest';
import { keepLastNUserTurns } from '../../src/engine/index.js';

const roles = (labels: string) =>
  labels.split(' ').map((id) => ({ id, role: id.startsWith('u') ? 'user' : 'assistant' }));
const idsOf = (messages: readonly { id: string }[]) => messages.map((m) => m.id);

describe('keepLastNUserTurns, the on-disk trim (engine.md §2.3)', () => {
  it('keeps from the n-th user message from the end, same objects', () => {
    const stored = roles('u1 a2 a3 a4 u5 a6 u7 a8');
    const kept = keepLastNUserTurns(stored, 2);
    expect(idsOf(kept)).toEqual(['u5', 'a6', 'u7', 'a8']);
    expect(kept[0]).toBe(stored[4]);
  });

  it('reproduces the §12.2 trim: 8 lines → 4, starting at "Fix it and add a test."', () => {
    const stored = roles('u0 a1 a2 a3 u4 a5 u6 a7');
    expect(idsOf(keepLastNUserTurns(stored, 2))).toEqual(['u4', 'a5', 'u6', 'a7']);
  });

  it('n <= 0 keeps nothing', () => {
    expect(keepLastNUserTurns(roles('u1 a2'), 0)).toEqual([]);
    expect(keepLastNUserTurns(roles('u1 a2'), -1, 'aug')).toEqual([]);
  });

  it('headless (newest): first prompt + the suffix from the n-th assistant message from the end', () => {
    expect(idsOf(keepLastNUserTurns(roles('u1 a2 a3 a4 a5'), 2))).toEqual(['u1', 'a4', 'a5']);
    // The first message is kept only when it is a user message and not already in the suffix.
    expect(idsOf(keepLastNUserTurns(roles('a1 a2 a3'), 2))).toEqual(['a2', 'a3']);
    expect(idsOf(keepLastNUserTurns(roles('u1 a2 a3'), 2))).toEqual(['u1', 'a2', 'a3']);
  });

  it('keeps a copy of everything when there are too few user and assistant messages', () => {
    const stored = roles('u1 a2');
    const kept = keepLastNUserTurns(stored, 2);
    expect(idsOf(kept)).toEqual(['u1', 'a2']);
    expect(kept).not.toBe(stored);
  });

  it('Aug version: no headless fallback', () => {
    expect(idsOf(keepLastNUserTurns(roles('u1 a2 a3 a4 a5'), 2, 'aug'))).toEqual(['u1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('counts any user-role message, synthetic ones included (only the role is checked)', () => {
    const stored = [...roles('u1 a2 u3 a4'), { id: 'poke', role: 'user', synthetic: 'auto_poke' }];
    expect(idsOf(keepLastNUserTurns(stored, 2))).toEqual(['u3', 'a4', 'poke']);
  });
});
