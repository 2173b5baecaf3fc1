import { describe, expect, it } from 'vitest';
import {
  ArraySessionStore,
  MemoryService,
  compactionInvalidationDetail,
  engineParams,
  runCompaction,
} from '../../src/engine/index.js';
import { assistant, text, user } from './support/messages.js';

describe('runCompaction consequences (engine.md §5.3)', () => {
  it('a block is logged as a warning and has no effects', () => {
    const memory = new MemoryService('s', {
      params: engineParams(),
      hooks: { preCompact: () => ({ allowed: false, reason: 'busy' }), postCompact: () => undefined },
    });
    for (const role of ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'] as const)
      memory.addMessage(role, 'x'.repeat(40), 1);
    const store = new ArraySessionStore([user('u1'), assistant('a1', [text('x')])]);
    const outcome = runCompaction({ memory, store, trigger: 'auto', compactOptions: { nowMs: 1 } });
    expect(outcome).toMatchObject({
      kind: 'not-compacted',
      logLevel: 'warn',
      result: { compacted: false, reason: 'busy' },
    });
    expect('effects' in outcome).toBe(false);
  });

  it('names the trigger and the estimates in the invalidation detail', () => {
    expect(compactionInvalidationDetail('manual', 872, 748)).toBe('manual compaction: 872 \u2192 748 tokens');
  });
});
