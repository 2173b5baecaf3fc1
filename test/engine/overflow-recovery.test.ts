/** Overflow recovery (engine.md §5.4, sequencing adopted in src/engine/overflow-recovery.ts), and property (g). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_OVERFLOW_COMPACTIONS, OverflowRecovery, runTurnSends } from '../../src/engine/index.js';
import type { SendAttempt } from '../../src/engine/index.js';

const overflow = () => new Error('prompt is too long: 250000 tokens > 200000 maximum');
const compacted = (tokensBefore = 100) => ({ compacted: true, tokensBefore });
const notCompacted = { compacted: false, tokensBefore: 50 };

describe('OverflowRecovery guards (§5.4)', () => {
  it('guard 1: a non-overflow error is rethrown unchanged, without compacting', () => {
    const recovery = new OverflowRecovery();
    const error = new Error('503 upstream');
    let compactions = 0;
    const decision = recovery.onSendFailed(error, () => (compactions++, compacted()));
    expect(decision).toEqual({ kind: 'rethrow', cause: 'not-overflow', error });
    expect(decision.kind === 'rethrow' && decision.error).toBe(error);
    expect(compactions).toBe(0);
  });

  it('guard 3: nothing compacted → the original error, after the overflow event (newest)', () => {
    const recovery = new OverflowRecovery();
    const error = overflow();
    const decision = recovery.onSendFailed(error, () => notCompacted);
    expect(decision).toEqual({
      kind: 'rethrow',
      cause: 'not-compacted',
      error,
      compaction: notCompacted,
      contextOverflow: { beforeTokens: 50 },
    });
    expect(decision.kind === 'rethrow' && decision.error).toBe(error);
    expect(new OverflowRecovery({ version: 'aug' }).onSendFailed(error, () => notCompacted)).toMatchObject({
      contextOverflow: null,
    });
  });

  it('guard 2: after 3 compactions without a successful send, the next overflow is rethrown', () => {
    expect(MAX_OVERFLOW_COMPACTIONS).toBe(3);
    const recovery = new OverflowRecovery();
    for (let i = 1; i <= 3; i++)
      expect(recovery.onSendFailed(overflow(), () => compacted())).toMatchObject({
        kind: 'retry',
        overflowCompactions: i,
      });
    expect(recovery.onSendFailed(overflow(), () => compacted())).toMatchObject({
      kind: 'rethrow',
      cause: 'retries-exhausted',
    });
    recovery.onSendSucceeded();
    expect(recovery.overflowCompactions).toBe(0);
    expect(recovery.onSendFailed(overflow(), () => compacted())).toMatchObject({
      kind: 'retry',
      overflowCompactions: 1,
    });
  });
});

describe('runTurnSends: three compactions, then the turn fails (not four)', () => {
  it('a prompt that never fits: send, compact, re-send ×3, then the 4th overflow fails the turn', () => {
    const recovery = new OverflowRecovery();
    let compactions = 0;
    const outcome = runTurnSends(
      recovery,
      (): SendAttempt => ({ ok: false, error: overflow() }),
      () => (compactions++, compacted()),
    );
    expect(outcome.kind).toBe('failed');
    expect(compactions).toBe(3);
    expect(outcome.sends.map((s) => s.kind)).toEqual(['send', 'retry', 'send', 'retry', 'send', 'retry', 'send']);
    expect(outcome).toMatchObject({ cause: 'retries-exhausted' });
  });

  it('the re-send that fits ends the turn and resets the counter', () => {
    const recovery = new OverflowRecovery();
    const attempts: SendAttempt[] = [{ ok: false, error: overflow() }, { ok: true }];
    const outcome = runTurnSends(
      recovery,
      () => attempts.shift() ?? { ok: true },
      () => compacted(),
    );
    expect(outcome).toMatchObject({
      kind: 'sent',
      sends: [
        { kind: 'send', ok: false },
        { kind: 'retry', ok: true },
      ],
    });
    expect(recovery.overflowCompactions).toBe(0);
  });

  it('a maxOverflowCompactions parameter changes the cap', () => {
    let compactions = 0;
    runTurnSends(
      new OverflowRecovery({ maxOverflowCompactions: 1 }),
      () => ({ ok: false, error: overflow() }),
      () => (compactions++, compacted()),
    );
    expect(compactions).toBe(1);
  });
});

describe('property (g): compactAndRetry', () => {
  // Mostly overflows, so that long runs of them (the interesting case) are common.
  const failureArb = fc.oneof(
    { arbitrary: fc.constant({ kind: 'overflow' as const }), weight: 8 },
    { arbitrary: fc.constant({ kind: 'other' as const }), weight: 1 },
    { arbitrary: fc.constant({ kind: 'ok' as const }), weight: 1 },
  );

  it('compacts at most 3 times per turn; errors come back as the very objects thrown', () => {
    fc.assert(
      fc.property(
        fc.array(failureArb, { maxLength: 30 }),
        fc.array(fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }), {
          maxLength: 10,
        }),
        (sends, compactionResults) => {
          const recovery = new OverflowRecovery();
          const thrown: unknown[] = [];
          const script = [...sends];
          const results = [...compactionResults];
          let compactions = 0;
          const outcome = runTurnSends(
            recovery,
            (): SendAttempt => {
              const next = script.shift() ?? { kind: 'ok' as const };
              if (next.kind === 'ok') return { ok: true };
              const error = next.kind === 'overflow' ? overflow() : new Error('socket hang up');
              thrown.push(error);
              return { ok: false, error };
            },
            () => {
              compactions += 1;
              return { compacted: results.shift() ?? true, tokensBefore: 1 };
            },
          );
          expect(compactions).toBeLessThanOrEqual(MAX_OVERFLOW_COMPACTIONS);
          if (outcome.kind === 'failed') {
            // The error that fails the turn is the one the last send threw, untouched.
            expect(outcome.error).toBe(thrown.at(-1));
            if (outcome.cause === 'not-overflow')
              expect(outcome.error instanceof Error && outcome.error.message).toBe('socket hang up');
            if (outcome.cause === 'not-compacted') expect(outcome.compactionAttempts.at(-1)?.compacted).toBe(false);
          } else {
            expect(recovery.overflowCompactions).toBe(0);
          }
        },
      ),
    );
  });

  it('with nothing freed, the original overflow error is thrown after one compaction attempt', () => {
    fc.assert(
      fc.property(fc.nat({ max: 5 }), (prior) => {
        const recovery = new OverflowRecovery();
        const original = overflow();
        for (let i = 0; i < Math.min(prior, 2); i++) recovery.onSendFailed(overflow(), () => compacted());
        const decision = recovery.onSendFailed(original, () => notCompacted);
        expect(decision.kind).toBe('rethrow');
        expect(decision.kind === 'rethrow' && decision.error).toBe(original);
      }),
    );
  });
});
