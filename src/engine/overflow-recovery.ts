/**
 * Overflow recovery (`compactAndRetry`, engine.md §5.4) as a synchronous state machine the replay
 * can drive.
 *
 * Sequencing adopted for the whole project (§5.4: "three compactions, then the turn
 * fails", the same count in the engine, the replay and the detectors): on a failed send, guard 1 (not an overflow → rethrow unchanged), guard 2
 * (counter ≥ max → rethrow), increment, compact, guard 3 (nothing compacted → rethrow the
 * ORIGINAL error), then ONE re-send that is not wrapped again. If that re-send fails, its error
 * leaves the iteration; the loop attempts the iteration again without resetting the counter (no
 * send succeeded), and that attempt's failure goes through `onSendFailed` again. Only a
 * successful send resets the counter. So a turn compacts at most `maxOverflowCompactions` times
 * and the next overflow fails it.
 */
import { isContextOverflowError } from './overflow.js';
import type { EngineVersion } from './params.js';
import { MAX_OVERFLOW_COMPACTIONS } from './params.js';

/** What recovery reads of a compaction outcome (`ApplyCompactionResult` fits). */
export interface OverflowCompaction {
  readonly compacted: boolean;
  readonly tokensBefore: number;
}

/** The stream notice FreeCode shows before compacting (§5.4 step 3). */
export const OVERFLOW_NOTICE = "The conversation outgrew the model's context window. Compacting and retrying.";

/** The `context.overflow` rollout event (newest only), written after the compaction attempt (§5.4 step 5). */
export type ContextOverflowEvent = { readonly beforeTokens: number } | null;

export type SendFailureDecision<C extends OverflowCompaction> =
  | {
      readonly kind: 'retry';
      readonly compaction: C;
      readonly contextOverflow: ContextOverflowEvent;
      /** The counter after this compaction. */
      readonly overflowCompactions: number;
    }
  | { readonly kind: 'rethrow'; readonly cause: 'not-overflow' | 'retries-exhausted'; readonly error: unknown }
  | {
      readonly kind: 'rethrow';
      readonly cause: 'not-compacted';
      readonly error: unknown;
      readonly compaction: C;
      readonly contextOverflow: ContextOverflowEvent;
    };

export interface OverflowRecoveryOptions {
  readonly maxOverflowCompactions?: number;
  readonly version?: EngineVersion;
}

export class OverflowRecovery {
  private readonly maxOverflowCompactions: number;
  private readonly version: EngineVersion;
  private counter = 0;

  constructor(options: OverflowRecoveryOptions = {}) {
    this.maxOverflowCompactions = options.maxOverflowCompactions ?? MAX_OVERFLOW_COMPACTIONS;
    this.version = options.version ?? 'newest';
  }

  /** Overflow compactions since the last successful send (FreeCode's `overflowCompactions`). */
  get overflowCompactions(): number {
    return this.counter;
  }

  /** A send succeeded: the counter resets (§5.2 step 5). */
  onSendSucceeded(): void {
    this.counter = 0;
  }

  /**
   * A send failed: the three guards and the compaction of §5.4. `retry` means "re-send once, and
   * do not pass that re-send's failure back here"; `rethrow` carries the error to propagate
   * (the original one for guard 3).
   */
  onSendFailed<C extends OverflowCompaction>(error: unknown, compact: () => C): SendFailureDecision<C> {
    if (!isContextOverflowError(error)) return { kind: 'rethrow', cause: 'not-overflow', error };
    if (this.counter >= this.maxOverflowCompactions) return { kind: 'rethrow', cause: 'retries-exhausted', error };
    this.counter += 1;
    const compaction = compact();
    const contextOverflow: ContextOverflowEvent =
      this.version === 'newest' ? { beforeTokens: compaction.tokensBefore } : null;
    if (!compaction.compacted) return { kind: 'rethrow', cause: 'not-compacted', error, compaction, contextOverflow };
    return { kind: 'retry', compaction, contextOverflow, overflowCompactions: this.counter };
  }
}

export type SendAttempt = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/** One send of the turn as it happened: a normal send or the unwrapped re-send after a compaction. */
export interface SendRecord {
  readonly kind: 'send' | 'retry';
  readonly ok: boolean;
}

export type TurnSendOutcome<C extends OverflowCompaction> =
  | { readonly kind: 'sent'; readonly sends: readonly SendRecord[]; readonly compactionAttempts: readonly C[] }
  | {
      readonly kind: 'failed';
      readonly error: unknown;
      readonly cause: 'not-overflow' | 'retries-exhausted' | 'not-compacted';
      readonly sends: readonly SendRecord[];
      readonly compactionAttempts: readonly C[];
    };

/**
 * Drives one iteration's provider call to its end under the sequencing above: `send` is called
 * for each attempt (it sees whatever the compactions changed), `compact` for each overflow
 * compaction. Terminates: every loop either returns or raises the counter, which is bounded.
 */
export function runTurnSends<C extends OverflowCompaction>(
  recovery: OverflowRecovery,
  send: () => SendAttempt,
  compact: () => C,
): TurnSendOutcome<C> {
  const sends: SendRecord[] = [];
  const compactionAttempts: C[] = [];
  for (;;) {
    const attempt = send();
    sends.push({ kind: 'send', ok: attempt.ok });
    if (attempt.ok) {
      recovery.onSendSucceeded();
      return { kind: 'sent', sends, compactionAttempts };
    }
    const decision = recovery.onSendFailed(attempt.error, compact);
    if (decision.kind === 'rethrow') {
      if (decision.cause === 'not-compacted') compactionAttempts.push(decision.compaction);
      return { kind: 'failed', error: decision.error, cause: decision.cause, sends, compactionAttempts };
    }
    compactionAttempts.push(decision.compaction);
    const retry = send();
    sends.push({ kind: 'retry', ok: retry.ok });
    if (retry.ok) {
      recovery.onSendSucceeded();
      return { kind: 'sent', sends, compactionAttempts };
    }
    // The re-send's error leaves the iteration; the loop attempts the iteration again (§5.4 as adopted).
  }
}
