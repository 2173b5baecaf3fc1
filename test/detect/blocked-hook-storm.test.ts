import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockedHookStorm } from '../../src/detect/blocked-hook-storm.js';
import type { TraceCompaction } from '../../src/detect/trace.js';
import { compaction, input, requests, stableRequests, trace } from './trace-fixture.js';

const blocked = (at: number) => compaction(at, { outcome: 'blocked' });

/** Prompts of 108K, 114K, 120K, …: each block sees 6,000 more tokens than the last. */
const growing = stableRequests(Array.from({ length: 12 }, (_, i) => 108_000 + 6_000 * i));

function flagFor(compactions: readonly TraceCompaction[], prompts = growing) {
  return blockedHookStorm.detect(input(trace({ requests: prompts, compactions })));
}

describe('blocked-hook storm', () => {
  it('flags three PreCompact blocks in a row, not two', () => {
    const flag = flagFor([blocked(1), blocked(2), blocked(3)]);
    expect(flag).toMatchObject({ kind: 'blocked-hook-storm', severity: 'warning', requests: { first: 1, last: 11 } });
    expect(flag?.evidence).toMatchObject({
      blockedCompactions: 3,
      earlyReblocks: 0,
      contextAtFirstBlockTokens: 108_000,
      contextAtLastBlockTokens: 120_000,
    });
    expect(flagFor([blocked(1), blocked(2)])).toBeNull();
  });

  it('a completed compaction ends the storm', () => {
    expect(flagFor([blocked(1), blocked(2), compaction(3), blocked(4)])).toBeNull();
    // The storm's cost runs up to the compaction that finally went through.
    expect(flagFor([blocked(1), blocked(2), blocked(3), compaction(6)])?.requests).toEqual({ first: 1, last: 5 });
  });

  it('counts blocks that came before the 5,000-token hold allowed a retry', () => {
    const slow = stableRequests([107_000, 108_000, 112_999, 118_000, 118_500]);
    // Contexts at the blocks: 107,000, 108,000 (+1,000: early), 112,999 (+4,999: early), 118,000 (+5,001).
    expect(flagFor([blocked(1), blocked(2), blocked(3), blocked(4)], slow)?.evidence['earlyReblocks']).toBe(2);
  });

  it('prices the storm against the default target with the hook allowing, when that replay exists', () => {
    const examined = trace({
      requests: requests(Array(4).fill({ prompt: 130_000, output: 0 })),
      compactions: [blocked(1), blocked(2), blocked(3)],
    });
    const allowed = trace({
      scenario: 'freecode@120000 with the PreCompact hook allowing',
      requests: requests(Array(4).fill({ prompt: 30_000, output: 0 })),
    });
    const flag = blockedHookStorm.detect(input(examined, { hookAllowedBaseline: allowed }));
    // Requests 1..3: 3 × 100,000 tokens × $3/MTok.
    expect(flag?.stake).toEqual({
      kind: 'priced',
      picoUsd: 3n * 100_000n * 3_000_000n,
      against: 'freecode@120000 with the PreCompact hook allowing',
    });
  });

  it('is critical once the context it lets grow reaches twice the target', () => {
    const big = stableRequests([110_000, 150_000, 200_000, 240_000]);
    expect(flagFor([blocked(1), blocked(2), blocked(3)], big)?.severity).toBe('critical');
  });

  it('property: flagged exactly when some run of blocks without a completed compaction reaches three', () => {
    // Checked against a deliberate bug: letting a "nothing to compact" attempt end a run (only a completed compaction does).
    const kinds = fc.array(fc.constantFrom('blocked', 'compacted', 'nothing'), { maxLength: 12 });
    fc.assert(
      fc.property(kinds, (list) => {
        const compactions = list.map((kind, i) =>
          kind === 'blocked'
            ? blocked(i)
            : compaction(i, { outcome: kind === 'compacted' ? 'compacted' : 'nothing-to-compact' }),
        );
        let run = 0;
        let longest = 0;
        for (const kind of list) {
          if (kind === 'blocked') run += 1;
          else if (kind === 'compacted') run = 0;
          longest = Math.max(longest, run);
        }
        expect(flagFor(compactions) !== null).toBe(longest >= 3);
      }),
    );
  });
});
