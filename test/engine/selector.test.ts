import { describe, expect, it } from 'vitest';
import { AUG_ENGINE_PARAMS, DEFAULT_ENGINE_PARAMS, engineParams, selectForCompaction } from '../../src/engine/index.js';
import { ids, msgs } from './support/messages.js';

const newest = DEFAULT_ENGINE_PARAMS;
const strict = engineParams({ selector: 'strict' });

describe('selectForCompaction, newest (engine.md §2.2 test vectors, 100 tokens each)', () => {
  it('[u1,a2,u3,a4,u5,a6] → summarize [a2], preserve [u1,u3,a4,u5,a6] (head carve-out)', () => {
    const result = selectForCompaction(msgs('u1 a2 u3 a4 u5 a6'), newest);
    expect(ids(result.summarize)).toEqual(['a2']);
    expect(ids(result.preserve)).toEqual(['u1', 'u3', 'a4', 'u5', 'a6']);
    expect(result.summarizeTokenCount).toBe(100);
    expect(result.preserveTokenCount).toBe(500);
    expect(result.headIndex).toBe(0);
    expect(result.tailStartIndex).toBe(2);
  });

  it('a 50,000-token head is summarized; preserve starts at u3', () => {
    const messages = msgs('u1 a2 u3 a4 u5 a6').map((m) => (m.id === 'u1' ? { ...m, tokenCount: 50_000 } : m));
    const result = selectForCompaction(messages, newest);
    expect(ids(result.summarize)).toEqual(['u1', 'a2']);
    expect(ids(result.preserve)).toEqual(['u3', 'a4', 'u5', 'a6']);
    expect(result.headIndex).toBeNull();
  });

  it('the head cap is inclusive: 2,000 tokens is carved out, 2,001 is not', () => {
    const withHead = (tokens: number) =>
      selectForCompaction(
        msgs('u1 a2 u3 a4 u5 a6').map((m) => (m.id === 'u1' ? { ...m, tokenCount: tokens } : m)),
        newest,
      );
    expect(ids(withHead(2_000).preserve)[0]).toBe('u1');
    expect(ids(withHead(2_001).summarize)).toEqual(['u1', 'a2']);
  });

  it('[u1,a2] → nothing to summarize', () => {
    const result = selectForCompaction(msgs('u1 a2'), newest);
    expect(result.summarize).toEqual([]);
    expect(ids(result.preserve)).toEqual(['u1', 'a2']);
  });

  it('headless run (one prompt, then replies): keeps the last 2 messages plus the carved-out prompt', () => {
    const result = selectForCompaction(msgs('u1 a2 a3 a4 a5'), newest);
    expect(ids(result.summarize)).toEqual(['a2', 'a3']);
    expect(ids(result.preserve)).toEqual(['u1', 'a4', 'a5']);
  });

  it('drops from the front while over 8,000 tokens, keeping at least the last message', () => {
    const sized = (sizes: Record<string, number>) =>
      msgs('u1 a2 u3 a4 u5 a6').map((m) => ({ ...m, tokenCount: sizes[m.id] ?? 100 }));
    // Tail u3..a6 = 8,100 > 8,000 → u3 dropped; the tail starts on an assistant message (§2.2 step 3).
    const result = selectForCompaction(sized({ u3: 3_100, a4: 4_000, u5: 500, a6: 500 }), newest);
    expect(result.tailStartIndex).toBe(3);
    expect(ids(result.summarize)).toEqual(['a2', 'u3']);
    expect(ids(result.preserve)).toEqual(['u1', 'a4', 'u5', 'a6']);
    // Exactly at the cap nothing is dropped.
    expect(ids(selectForCompaction(sized({ u3: 3_000, a4: 4_000, u5: 500, a6: 500 }), newest).preserve)).toEqual([
      'u1',
      'u3',
      'a4',
      'u5',
      'a6',
    ]);
    // A last message alone above the cap is still kept.
    const huge = selectForCompaction(sized({ a6: 9_000 }), newest);
    expect(ids(huge.preserve)).toEqual(['u1', 'a6']);
  });

  it('with preserveRecentTurns 0 summarizes everything but the carved-out head', () => {
    const result = selectForCompaction(msgs('u1 a2 u3 a4'), engineParams({ preserveRecentTurns: 0 }));
    expect(ids(result.summarize)).toEqual(['a2', 'u3', 'a4']);
    expect(ids(result.preserve)).toEqual(['u1']);
  });
});

describe('selectForCompaction, strict selector (§2.2 note)', () => {
  it('drops whole leading turns instead of single messages', () => {
    const sized = msgs('u1 a2 u3 a4 u5 a6').map((m) => ({
      ...m,
      tokenCount: ({ u3: 3_100, a4: 4_000, u5: 500, a6: 500 } as Record<string, number>)[m.id] ?? 100,
    }));
    const result = selectForCompaction(sized, strict);
    expect(ids(result.summarize)).toEqual(['a2', 'u3', 'a4']);
    expect(ids(result.preserve)).toEqual(['u1', 'u5', 'a6']);
  });

  it('keeps the last user turn even above the cap', () => {
    const sized = msgs('u1 a2 u3 a4').map((m) => (m.id === 'a4' ? { ...m, tokenCount: 9_000 } : m));
    const result = selectForCompaction(sized, strict);
    expect(ids(result.preserve)).toEqual(['u1', 'u3', 'a4']);
    expect(ids(result.summarize)).toEqual(['a2']);
  });

  it('summarizes dangling replies of a headless run instead of keeping them without their prompt', () => {
    const bigHead = msgs('u1 a2 a3 a4 a5').map((m) => (m.id === 'u1' ? { ...m, tokenCount: 3_000 } : m));
    const result = selectForCompaction(bigHead, strict);
    expect(result.preserve).toEqual([]);
    expect(ids(result.summarize)).toEqual(['u1', 'a2', 'a3', 'a4', 'a5']);
    // The literal selector keeps [a4, a5] there: a block that starts on an assistant message.
    expect(ids(selectForCompaction(bigHead, DEFAULT_ENGINE_PARAMS).preserve)).toEqual(['a4', 'a5']);
  });
});

describe('selectForCompaction, Aug version (§2.2 "Aug version difference")', () => {
  it('returns early while there are at most preserveRecentTurns user messages', () => {
    for (const labels of ['u1 a2', 'u1 a2 u3 a4', 'u1 a2 a3 a4 a5']) {
      const result = selectForCompaction(msgs(labels), AUG_ENGINE_PARAMS);
      expect(result.summarize).toEqual([]);
      expect(ids(result.preserve)).toEqual(ids(msgs(labels)));
    }
  });

  it('has no head carve-out', () => {
    const result = selectForCompaction(msgs('u1 a2 u3 a4 u5 a6'), AUG_ENGINE_PARAMS);
    expect(ids(result.summarize)).toEqual(['u1', 'a2']);
    expect(ids(result.preserve)).toEqual(['u3', 'a4', 'u5', 'a6']);
    expect(result.headIndex).toBeNull();
  });
});
