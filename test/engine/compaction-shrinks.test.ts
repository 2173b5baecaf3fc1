/**
 * Property (e): a compaction never increases what the next request carries. The provider-facing
 * history after `runCompaction` is an order-preserving sub-list of the one before (same objects;
 * only the codemode carry may rebuild the first one), so it has no more messages and no more
 * serialized bytes; the memory transcript keeps a subset of its messages. The summary block itself
 * can be larger than what it replaced (the §12 example grows 105 → 128), so it is not counted here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArraySessionStore, MemoryService, engineParams, runCompaction } from '../../src/engine/index.js';
import type { HistoryMessage } from '../../src/engine/index.js';

const storedArb = fc
  .array(
    fc.record({
      role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant'),
      content: fc.string({ maxLength: 30 }),
      // Rare, so that the tail usually has none and the codemode carry (§2.4 step 4) runs.
      snapshot: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 6 },
        { arbitrary: fc.constantFrom('s1', 's2'), weight: 1 },
      ),
    }),
    { maxLength: 14 },
  )
  .map((rows): HistoryMessage[] =>
    [{ role: 'user' as const, content: 'first prompt', snapshot: undefined }, ...rows].map((row, i) => ({
      id: `m${i}`,
      role: row.role,
      parts: [
        row.snapshot === undefined
          ? { type: 'text', content: row.content }
          : { type: 'text', content: row.content, codemodeStore: row.snapshot },
      ],
    })),
  );

describe('property (e): a compaction never increases what the next request carries', () => {
  it('holds for both versions and selectors, any preserveRecentTurns', () => {
    fc.assert(
      fc.property(
        storedArb,
        fc.constantFrom<'newest' | 'aug'>('newest', 'aug'),
        fc.constantFrom<'freecode' | 'strict'>('freecode', 'strict'),
        fc.integer({ min: 1, max: 3 }),
        (history, version, selector, turns) => {
          const params = engineParams({ version, selector, preserveRecentTurns: turns });
          const memory = new MemoryService('s', { params });
          for (const message of history) {
            const part = message.parts[0];
            memory.addMessage(
              message.role === 'user' ? 'user' : 'assistant',
              part !== undefined && 'content' in part ? String(part.content) : '',
              1,
            );
          }
          const memoryBefore = memory.state.messages;
          const store = new ArraySessionStore(history);
          runCompaction({
            memory,
            store,
            trigger: 'auto',
            compactOptions: { nowMs: 2 },
            preserveRecentTurns: turns,
            version,
          });
          const after = store.getMessages();

          expect(after.length).toBeLessThanOrEqual(history.length);
          expect(JSON.stringify(after).length).toBeLessThanOrEqual(JSON.stringify(history).length);
          // Order-preserving sub-list by id; every message but a rebuilt first one is the same object.
          let cursor = 0;
          after.forEach((message, i) => {
            const at = history.findIndex((m, j) => j >= cursor && m.id === message.id);
            expect(at).toBeGreaterThanOrEqual(0);
            if (i > 0) expect(message).toBe(history[at]);
            cursor = at + 1;
          });
          for (const message of memory.state.messages) expect(memoryBefore).toContain(message);
          expect(memory.state.messages.length).toBeLessThanOrEqual(memoryBefore.length);
        },
      ),
    );
  });
});
