import { describe, expect, it } from 'vitest';
import { checkSpendBreaker } from '../../src/engine/index.js';

describe('per-run spend breaker (engine.md §1.7)', () => {
  it('is off without a limit', () => {
    expect(checkSpendBreaker(10_000_000, 1_000_000, null)).toEqual({ kind: 'within-budget' });
  });

  it('stops only when input + output is strictly greater than the limit', () => {
    expect(checkSpendBreaker(900, 100, 1_000)).toEqual({ kind: 'within-budget' });
    expect(checkSpendBreaker(901, 100, 1_000)).toEqual({
      kind: 'exceeded',
      statusReason: 'spend_budget_exceeded',
      billedTokens: 1_001,
      limitTokens: 1_000,
      message:
        'Stopped: turn spend budget exceeded (1001 tokens billed, limit 1000). Set FREECODE_MAX_TURN_TOKENS to change.',
    });
  });
});
