import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionStorm, progressPct } from '../../src/detect/compaction-storm.js';
import type { TraceCompaction } from '../../src/detect/trace.js';
import { compaction, input, pico, requests, rowsOf, stableRequests, summarizeRow, trace } from './trace-fixture.js';

/** A compaction before request `at` that took the prompt from `before` to `after`. */
const step = (at: number, before: number, after: number, fields: Partial<TraceCompaction> = {}) =>
  compaction(at, { promptTokensBefore: before, promptTokensAfter: after, ...fields });

function flagFor(compactions: readonly TraceCompaction[], thresholds = {}) {
  return compactionStorm.detect(
    input(trace({ requests: stableRequests(Array(12).fill(110_000)), compactions }), { thresholds }),
  );
}

describe('compaction storm', () => {
  it('flags three compactions in a row that each free under 10% of the prompt, not two', () => {
    const storm = [step(2, 110_000, 109_000), step(4, 112_000, 111_000), step(6, 115_000, 114_000)];
    const flag = flagFor(storm);
    expect(flag).toMatchObject({ kind: 'compaction-storm', severity: 'warning', requests: { first: 2, last: 6 } });
    expect(flag?.evidence).toMatchObject({ lowProgressCompactions: 3, longestRun: 3, runs: 1, nothingToCompact: 0 });
    expect(flagFor(storm.slice(0, 2))).toBeNull();
  });

  it('a compaction freeing exactly 10% makes progress and ends the run', () => {
    expect(
      flagFor([step(2, 100_000, 99_000), step(4, 100_000, 90_000), step(6, 100_000, 99_000), step(8, 100_000, 99_000)]),
    ).toBeNull();
    expect(flagFor([step(2, 100_000, 99_000), step(4, 100_000, 90_001), step(6, 100_000, 99_000)])).not.toBeNull();
  });

  it('counts "nothing to compact" attempts as no progress, and ignores overflow compactions and hook blocks', () => {
    const nothing = compaction(3, { outcome: 'nothing-to-compact' });
    expect(flagFor([nothing, nothing, nothing])?.evidence['nothingToCompact']).toBe(3);
    const others = [
      step(2, 110_000, 109_000),
      step(3, 110_000, 109_000, { trigger: 'overflow' }),
      compaction(4, { outcome: 'blocked' }),
      step(5, 110_000, 109_000),
    ];
    expect(flagFor(others)).toBeNull();
  });

  it('falls back on the estimates when the provider counts are missing', () => {
    expect(progressPct(compaction(1, { estimateTokensBefore: 105, estimateTokensAfter: 128 }))).toBeCloseTo(-21.9, 1);
    expect(progressPct(compaction(1))).toBeNull();
    // Unknown progress ends a run.
    expect(
      flagFor([step(2, 100_000, 99_000), compaction(3), step(4, 100_000, 99_000), step(5, 100_000, 99_000)]),
    ).toBeNull();
  });

  it('is critical at fifty in a row (the real-world case)', () => {
    const many = Array.from({ length: 50 }, (_, i) => step(i, 110_000, 110_000));
    expect(flagFor(many)?.severity).toBe('critical');
    expect(flagFor(many.slice(1))?.severity).toBe('warning');
  });

  it('puts at stake the storm itself: its summarizer calls and the cache re-writes after it', () => {
    // Requests 0..3 read the previous prompt; a useless compaction before 2 makes it read only 12,000.
    const list = requests([
      { prompt: 100_000, write5m: 100_000, output: 0 },
      { prompt: 101_000, read: 100_000, write5m: 1_000, output: 0 },
      { prompt: 101_500, read: 12_000, write5m: 89_500, output: 0, compactionBefore: true },
      { prompt: 102_000, read: 101_500, write5m: 500, output: 0 },
    ]);
    const examined = trace({
      requests: list,
      rows: [...rowsOf(list), summarizeRow(2, 20_000, 1_000)],
      compactions: [step(2, 101_000, 101_500)],
    });
    const flag = compactionStorm.detect(input(examined, { thresholds: { stormMinCompactions: 1 } }));
    // Summarizer: 20,000 × $3 + 1,000 × $15 = $0.075. Re-write: 89,000 tokens read 101,000 − 12,000 at $3.75 − $0.30.
    expect(flag?.stake).toEqual({
      kind: 'priced',
      picoUsd: pico(0.075) + 89_000n * 3_450_000n,
      against: 'no compaction at those points (their summarizer calls and cache re-writes)',
    });
  });

  it('property: the storm size is the sum of runs of at least three low-progress attempts', () => {
    // Checked against a deliberate bug: resetting the run on a hook-blocked attempt (blocks are skipped, not breaks).
    const kinds = fc.array(fc.constantFrom('low', 'good', 'blocked'), { maxLength: 20 });
    fc.assert(
      fc.property(kinds, (list) => {
        const compactions = list.map((kind, i) =>
          kind === 'blocked'
            ? compaction(i, { outcome: 'blocked' })
            : step(i, 100_000, kind === 'low' ? 95_000 : 50_000),
        );
        let run = 0;
        let expected = 0;
        for (const kind of [...list, 'good']) {
          if (kind === 'blocked') continue;
          if (kind === 'low') run += 1;
          else {
            if (run >= 3) expected += run;
            run = 0;
          }
        }
        const flag = flagFor(compactions);
        expect(flag === null ? 0 : flag.evidence['lowProgressCompactions']).toBe(expected);
      }),
    );
  });
});
