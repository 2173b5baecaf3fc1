import { describe, expect, it } from 'vitest';
import {
  SLIDING_LEGACY_CAP_CHARS,
  SLIDING_LEGACY_KEEP_RECENT_RESPONSES,
  slidingLegacyTruncate,
} from '../../src/engine/index.js';
import type { HistoryMessage, ToolResultPart } from '../../src/engine/index.js';
import { assistant, text, tool, user } from './support/messages.js';

const shown = (messages: readonly HistoryMessage[]) =>
  messages.flatMap((m) => m.parts.filter((p): p is ToolResultPart => p.type === 'tool').map((p) => p.result));

describe('sliding 1,000-char truncation (RC4, engine.md §5.6 "History")', () => {
  it('truncates results above 1,000 chars in all but the 2 most recent responses', () => {
    expect([SLIDING_LEGACY_KEEP_RECENT_RESPONSES, SLIDING_LEGACY_CAP_CHARS]).toEqual([2, 1_000]);
    const long = 'x'.repeat(1_500);
    const history = [
      user('u1'),
      assistant('a1', [tool('t1', long), tool('t1b', 'x'.repeat(1_000))]),
      assistant('a2', [tool('t2', long)]),
      user('u2'),
      assistant('a3', [tool('t3', long)]),
    ];
    const outcome = slidingLegacyTruncate(history, 2, 1_000);
    expect(shown(outcome.messages)).toEqual([`${'x'.repeat(1_000)}\n[truncated]`, 'x'.repeat(1_000), long, long]);
    expect(outcome.messages[2]).toBe(history[2]);
    expect(outcome.stats).toEqual({
      candidateCount: 4,
      replacedCount: 1,
      newlyReplacedCount: 1,
      charsBefore: 5_500,
      charsAfter: 5_012,
    });
  });

  it('groups the messages of one response by responseId', () => {
    const long = 'y'.repeat(1_200);
    const history = [
      user('u1'),
      assistant('r1-text', [text('old')], 'r1'),
      assistant('r1-tool', [tool('t1', long)], 'r1'),
      assistant('r2-text', [text('mid')], 'r2'),
      assistant('r2-tool-a', [tool('t2a', long)], 'r2'),
      assistant('r2-tool-b', [tool('t2b', long)], 'r2'),
      assistant('r3-tool', [tool('t3', long)], 'r3'),
    ];
    const outcome = slidingLegacyTruncate(history, 2, 1_000);
    expect(shown(outcome.messages).map((r) => r.length)).toEqual([1_012, 1_200, 1_200, 1_200]);
  });

  it('is not sticky: the window slides, so an already-sent result changes on the next request', () => {
    const long = 'z'.repeat(1_100);
    const history = [user('u1'), assistant('a1', [tool('t1', long)]), assistant('a2', [tool('t2', long)])];
    expect(shown(slidingLegacyTruncate(history, 2, 1_000).messages)[0]).toBe(long);
    const next = [...history, user('u2'), assistant('a3', [tool('t3', long)])];
    expect(shown(slidingLegacyTruncate(next, 2, 1_000).messages)[0]).toBe(`${'z'.repeat(1_000)}\n[truncated]`);
  });
});
