import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonConvergingOverflow } from '../../src/detect/non-converging-overflow.js';
import type { TraceFailure, TraceRejection } from '../../src/detect/trace.js';
import { compaction, input, stableRequests, trace } from './trace-fixture.js';

const refused = (requestIndex: number, userTurn = 1, promptTokens: number | null = 210_000): TraceRejection => ({
  requestIndex,
  userTurn,
  promptTokens,
});

function flagFor(
  rejections: readonly TraceRejection[],
  failures: readonly TraceFailure[] = [],
  overflowCompactions = rejections.length,
) {
  const compactions = rejections
    .slice(0, overflowCompactions)
    .map((r) => compaction(r.requestIndex, { trigger: 'overflow', userTurn: r.userTurn }));
  return nonConvergingOverflow.detect(
    input(trace({ requests: stableRequests([50_000, 60_000, 70_000, 80_000]), rejections, failures, compactions })),
  );
}

describe('non-converging overflow', () => {
  it('flags overflow → compact → overflow again in one user turn, not a single overflow that compaction fixed', () => {
    const flag = flagFor([refused(2), refused(2)]);
    expect(flag).toMatchObject({
      kind: 'non-converging-overflow',
      severity: 'warning',
      requests: { first: 2, last: 2 },
    });
    expect(flag?.evidence).toMatchObject({
      rejectedSends: 2,
      overflowCompactions: 2,
      failedTurns: 0,
      largestRefusedPromptTokens: 210_000,
      windowTokens: 200_000,
    });
    expect(flagFor([refused(2)])).toBeNull();
  });

  it('two overflows in two different user turns are two recoveries, not a loop', () => {
    expect(flagFor([refused(1, 1), refused(3, 2)])).toBeNull();
  });

  it('a failed turn is critical even after one refusal (guard 3: nothing left to compact)', () => {
    const flag = flagFor([refused(3)], [{ requestIndex: 3, userTurn: 1 }], 0);
    expect(flag?.severity).toBe('critical');
    expect(flag?.summary).toMatch(/1 turn failed/);
  });

  it('the threshold is configurable', () => {
    expect(
      nonConvergingOverflow.detect(
        input(trace({ requests: stableRequests([1_000]), rejections: [refused(0), refused(0)] }), {
          thresholds: { overflowMinRejections: 3 },
        }),
      ),
    ).toBeNull();
  });

  it('property: flagged exactly when some turn has two refusals or a failure', () => {
    // Checked against a deliberate bug: counting refusals per session instead of per turn.
    const refusals = fc.array(fc.record({ turn: fc.integer({ min: 1, max: 4 }), failed: fc.boolean() }), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(refusals, (list) => {
        const rejections = list.map((entry) => refused(entry.turn, entry.turn));
        const failures = list
          .filter((entry) => entry.failed)
          .map((entry) => ({ requestIndex: entry.turn, userTurn: entry.turn }));
        const perTurn = new Map<number, number>();
        for (const entry of list) perTurn.set(entry.turn, (perTurn.get(entry.turn) ?? 0) + 1);
        const expected = failures.length > 0 || [...perTurn.values()].some((count) => count >= 2);
        expect(flagFor(rejections, failures) !== null).toBe(expected);
      }),
    );
  });
});
