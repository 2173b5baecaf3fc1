import { describe, expect, it } from 'vitest';
import { MICROCOMPACT_CLEARED_TEXT, applyMicrocompact, timeBasedMicrocompact } from '../../src/engine/index.js';
import type { HistoryMessage, ToolResultPart } from '../../src/engine/index.js';
import { assistant, tool, user } from './support/messages.js';

const shown = (messages: readonly HistoryMessage[]) =>
  messages.flatMap((m) => m.parts.filter((p): p is ToolResultPart => p.type === 'tool').map((p) => p.result));

const history = [user('u1'), assistant('a1', [tool('big', 'b'.repeat(201)), tool('edge', 'e'.repeat(200))])];

describe('legacy time-based microcompact (RC3, engine.md §5.7)', () => {
  it('does nothing within 5 minutes, or without a previous message', () => {
    expect(timeBasedMicrocompact(history, 0, 300_000)).toEqual({ kind: 'not-idle' });
    expect(timeBasedMicrocompact(history, null, 10_000_000)).toEqual({ kind: 'not-idle' });
    expect(applyMicrocompact(history, { kind: 'not-idle' })).toEqual(history);
  });

  it('after more than 5 minutes clears every result longer than 200 chars for the run', () => {
    const decision = timeBasedMicrocompact(history, 0, 300_001);
    expect(decision).toEqual({ kind: 'cleared', clearedToolIds: new Set(['big']), idleMs: 300_001 });
    const later = [...history, user('u2'), assistant('a2', [tool('new', 'n'.repeat(5_000))])];
    // Results that arrive later in the run are shown whole; the store still has every result.
    expect(shown(applyMicrocompact(later, decision))).toEqual([
      MICROCOMPACT_CLEARED_TEXT,
      'e'.repeat(200),
      'n'.repeat(5_000),
    ]);
    expect(shown(later)[0]).toBe('b'.repeat(201));
  });

  it('is evaluated again from the stored results at the next user message', () => {
    const stored = [...history, user('u2'), assistant('a2', [tool('new', 'n'.repeat(5_000))])];
    expect(timeBasedMicrocompact(stored, 1_000_000, 1_000_100)).toEqual({ kind: 'not-idle' });
    const idle = timeBasedMicrocompact(stored, 1_000_000, 2_000_000);
    expect(idle.kind === 'cleared' && [...idle.clearedToolIds]).toEqual(['big', 'new']);
  });
});
