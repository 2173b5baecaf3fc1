import { describe, expect, it } from 'vitest';
import { PruneState, prunedToolResultText, selectFreshToReplace } from '../../src/engine/index.js';

const c = (id: string, sizeChars: number) => ({ id, sizeChars });

describe('PruneState (engine.md §5.6)', () => {
  it('partitions candidates into mustReapply, frozen and fresh', () => {
    const state = new PruneState();
    state.recordReplaced('r', '[gone]');
    state.recordSeen('s');
    expect(state.partition([c('r', 10), c('s', 20), c('f', 30)])).toEqual({
      mustReapply: [{ id: 'r', sizeChars: 10, replacement: '[gone]' }],
      frozen: [c('s', 20)],
      fresh: [c('f', 30)],
    });
  });

  it('never demotes a replaced result to seen', () => {
    const state = new PruneState();
    state.recordReplaced('a', '[gone]');
    state.recordSeen('a');
    expect(state.partition([c('a', 1)]).mustReapply).toHaveLength(1);
    expect(state.isFrozen('a')).toBe(false);
  });

  it('resets and clones independently', () => {
    const state = new PruneState();
    state.recordSeen('a');
    const copy = state.clone();
    state.reset();
    expect(state.partition([c('a', 1)]).fresh).toHaveLength(1);
    expect(copy.partition([c('a', 1)]).frozen).toHaveLength(1);
  });
});

describe('selectFreshToReplace (§5.6)', () => {
  it('selects nothing while the total fits, the budget included', () => {
    expect(selectFreshToReplace([c('a', 50)], 50, 100)).toEqual([]);
    expect(selectFreshToReplace([c('a', 51)], 50, 100)).toEqual([c('a', 51)]);
  });

  it('takes the largest first and stops as soon as the total fits', () => {
    expect(selectFreshToReplace([c('small', 10), c('huge', 500), c('mid', 100)], 0, 100).map((x) => x.id)).toEqual([
      'huge',
      'mid',
    ]);
  });

  it('keeps history order between equal sizes', () => {
    expect(selectFreshToReplace([c('a', 10), c('b', 10), c('c', 10)], 0, 15).map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('accepts frozen bytes over budget instead of forcing anything', () => {
    expect(selectFreshToReplace([], 5_000, 100)).toEqual([]);
    expect(selectFreshToReplace([c('a', 10)], 5_000, 100)).toEqual([c('a', 10)]);
  });

  it('renders the replacement from id and size', () => {
    expect(prunedToolResultText('toolu_01', 48_213)).toBe(
      '[tool result omitted to save context \u2014 48213 chars. Retrieve with the `output` tool (id="toolu_01"), or re-run the tool.]',
    );
  });
});
