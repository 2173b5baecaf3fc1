import { describe, expect, it } from 'vitest';
import {
  PruneState,
  applyPruningPolicy,
  pruneHistoryToolResults,
  slidingLegacyTruncate,
} from '../../src/engine/index.js';
import { assistant, tool, user } from './support/messages.js';

const history = [
  user('u1'),
  assistant('a1', [tool('t1', 'x'.repeat(3_000))]),
  assistant('a2', [tool('t2', 'y'.repeat(10))]),
  assistant('a3', [tool('t3', 'z')]),
];

describe('applyPruningPolicy', () => {
  it('dispatches on the policy kind', () => {
    expect(applyPruningPolicy(history, { kind: 'prefix-stable' }, new PruneState(), 100)).toEqual(
      pruneHistoryToolResults(history, new PruneState(), 100),
    );
    expect(
      applyPruningPolicy(
        history,
        { kind: 'sliding-legacy', keepRecentResponses: 2, capChars: 1_000 },
        new PruneState(),
        100,
      ),
    ).toEqual(slidingLegacyTruncate(history, 2, 1_000));
    const none = applyPruningPolicy(history, { kind: 'none' }, new PruneState(), 0);
    expect(none.messages).toEqual(history);
    expect(none.stats).toEqual({
      candidateCount: 3,
      replacedCount: 0,
      newlyReplacedCount: 0,
      charsBefore: 3_011,
      charsAfter: 3_011,
    });
  });
});
