/** The two 5,000-token holds of `MemoryService.shouldCompact` (engine.md §4.4), and property (h). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryService, engineParams, shouldCompact } from '../../src/engine/index.js';
import type { CompactionHooks, EngineParams } from '../../src/engine/index.js';

/** Trigger at any count, so only the holds decide. */
const anyCount = (overrides: Partial<EngineParams> = {}) =>
  engineParams({ autoCompactOverrideTokens: 1, ...overrides });

function blockingHooks(): CompactionHooks & { runs: number } {
  const hooks = {
    runs: 0,
    preCompact: () => {
      hooks.runs += 1;
      return { allowed: false as const, reason: 'no' };
    },
    postCompact: () => undefined,
  };
  return hooks;
}

function withTurns(service: MemoryService, turns = 3): void {
  for (let i = 0; i < turns; i++) {
    service.addMessage('user', 'u'.repeat(100), i * 2);
    service.addMessage('assistant', 'a'.repeat(100), i * 2 + 1);
  }
}

describe('blocked hold (§4.4 step 3)', () => {
  it('holds until the count has grown by 5,000: 4,999 no, 5,000 yes', () => {
    const hooks = blockingHooks();
    const service = new MemoryService('s', { params: anyCount(), hooks });
    withTurns(service);
    expect(service.shouldCompact(200_000, 20_000)).toBe(true);
    expect(service.compact({ nowMs: 1 }).kind).toBe('blocked');
    expect(service.holds.blockedAtTokenCount).toBe(20_000);
    expect(service.checkCompaction(200_000, 24_999)).toEqual({
      kind: 'held',
      hold: 'blocked',
      effectiveTokens: 24_999,
      releaseAtTokens: 25_000,
    });
    expect(service.shouldCompact(200_000, 25_000)).toBe(true);
    expect(hooks.runs).toBe(1);
  });

  it('remembers the estimate when no measurement was made (`lastEffective || tokenCount`)', () => {
    const service = new MemoryService('s', { params: anyCount(), hooks: blockingHooks() });
    withTurns(service);
    service.compact({ nowMs: 1 });
    expect(service.holds.blockedAtTokenCount).toBe(service.state.tokenCount);
    expect(service.shouldCompact(undefined)).toBe(false);
  });

  it('is a parameter: a 1,000-token hold releases at +1,000', () => {
    const service = new MemoryService('s', { params: anyCount({ holdGrowthTokens: 1_000 }), hooks: blockingHooks() });
    withTurns(service);
    service.shouldCompact(undefined, 50_000);
    service.compact({ nowMs: 1 });
    expect(service.shouldCompact(undefined, 50_999)).toBe(false);
    expect(service.shouldCompact(undefined, 51_000)).toBe(true);
  });
});

describe('post-compaction hold (§4.4 step 2, newest only)', () => {
  it('holds after a success until +5,000, and clears when the count falls below', () => {
    const service = new MemoryService('s', { params: anyCount() });
    withTurns(service);
    expect(service.shouldCompact(undefined, 30_000)).toBe(true);
    expect(service.compact({ nowMs: 1 }).kind).toBe('compacted');
    expect(service.holds).toEqual({ blockedAtTokenCount: null, compactedAtTokenCount: 30_000 });
    expect(service.checkCompaction(undefined, 34_999)).toMatchObject({
      kind: 'held',
      hold: 'post-compaction',
      releaseAtTokens: 35_000,
    });
    expect(service.shouldCompact(undefined, 35_000)).toBe(true);
    expect(service.shouldCompact(undefined, 29_999)).toBe(true);
    expect(service.holds.compactedAtTokenCount).toBeNull();
  });

  it('is not set when the compaction ran without a remembered count', () => {
    const service = new MemoryService('s', { params: anyCount() });
    withTurns(service);
    service.compact({ nowMs: 1 });
    expect(service.holds.compactedAtTokenCount).toBeNull();
  });

  it('does not exist in the Aug version', () => {
    const service = new MemoryService('s', { params: anyCount({ version: 'aug' }) });
    withTurns(service);
    service.shouldCompact(undefined, 30_000);
    service.compact({ nowMs: 1 });
    expect(service.shouldCompact(undefined, 30_001)).toBe(true);
  });

  it('a success clears the blocked hold', () => {
    let allow = false;
    const service = new MemoryService('s', {
      params: anyCount(),
      hooks: { preCompact: () => (allow ? { allowed: true } : { allowed: false }), postCompact: () => undefined },
    });
    withTurns(service);
    service.shouldCompact(undefined, 10_000);
    service.compact({ nowMs: 1 });
    allow = true;
    service.shouldCompact(undefined, 16_000);
    service.compact({ nowMs: 2 });
    expect(service.holds).toEqual({ blockedAtTokenCount: null, compactedAtTokenCount: 16_000 });
  });
});

describe('holds live one user message (§4.4, §13.8)', () => {
  it('startUserMessage() forgets both holds, like a new per-message service', () => {
    const service = new MemoryService('s', { params: anyCount(), hooks: blockingHooks() });
    withTurns(service);
    service.shouldCompact(undefined, 20_000);
    service.compact({ nowMs: 1 });
    expect(service.shouldCompact(undefined, 20_001)).toBe(false);
    service.startUserMessage();
    expect(service.holds).toEqual({ blockedAtTokenCount: null, compactedAtTokenCount: null });
    expect(service.shouldCompact(undefined, 20_001)).toBe(true);
  });
});

describe('property (h): a blocking hook is not run again until the count has grown by 5,000', () => {
  it('holds for any sequence of measured counts (0 = no measurement), and the hook does run again after', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 80_000 })), { maxLength: 40 }),
        (counts) => {
          const hooks = blockingHooks();
          const service = new MemoryService('s', { params: anyCount(), hooks });
          withTurns(service);
          let lastBlockedAt: number | null = null;
          for (const measured of counts) {
            const effective = measured > 0 ? measured : service.state.tokenCount;
            const runsBefore = hooks.runs;
            if (service.shouldCompact(200_000, measured)) service.compact({ nowMs: 1 });
            const ran = hooks.runs > runsBefore;
            const allowed = lastBlockedAt === null || effective >= lastBlockedAt + 5_000;
            expect(ran).toBe(allowed);
            if (ran) lastBlockedAt = effective;
          }
        },
      ),
    );
  });
});

describe('the threshold itself (§1.2 through §4.4 step 4)', () => {
  it('fires at exactly min(window, target) − buffer, not one token below', () => {
    const service = new MemoryService('s', { params: engineParams({ targetTokens: 120_000, bufferTokens: 13_000 }) });
    expect(service.checkCompaction(200_000, 106_999)).toEqual({
      kind: 'below-threshold',
      effectiveTokens: 106_999,
      thresholdTokens: 107_000,
    });
    expect(service.checkCompaction(200_000, 107_000)).toEqual({
      kind: 'compact',
      effectiveTokens: 107_000,
      thresholdTokens: 107_000,
    });
    // A window below the target: the window minus the buffer.
    expect(service.shouldCompact(100_000, 86_999)).toBe(false);
    expect(service.shouldCompact(100_000, 87_000)).toBe(true);
  });

  it('agrees with the pure shouldCompact on any count, window and parameters when no hold applies', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400_000 }),
        fc.option(fc.integer({ min: 1, max: 400_000 }), { nil: undefined }),
        fc.integer({ min: 1, max: 300_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: null }),
        (measured, window, targetTokens, bufferTokens, autoCompactOverrideTokens) => {
          const params = engineParams({ targetTokens, bufferTokens, autoCompactOverrideTokens });
          const service = new MemoryService('s', { params });
          expect(service.shouldCompact(window, measured)).toBe(shouldCompact(measured, window, params));
        },
      ),
    );
  });
});
