/**
 * Memory message ids (engine.md §4.3): `msg-<ms>-<counter>`, the counter skipped forward past any
 * id in the transcript at that moment. Checked against that rule written out (the ids of the
 * transcript before each message), over loaded states whose ids have the same form, messages of
 * equal timestamps, and compactions that drop loaded messages (their ids may come again after).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryState } from '../../src/engine/index.js';
import { InMemoryMemoryStore, MemoryService, engineParams, freshMemoryState } from '../../src/engine/index.js';

describe('memory message ids', () => {
  it('are the first counter from the last one on whose id is not in the transcript', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 6 }),
        fc.array(fc.oneof(fc.constantFrom(5, 6), fc.constant(-1)), { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (loadedCounters, steps, newStore) => {
          const loaded: MemoryState = {
            ...freshMemoryState('s'),
            messages: loadedCounters.map((k, i) => ({
              id: `msg-5-${k.toString(36)}`,
              role: i % 2 === 0 ? 'user' : 'assistant',
              content: 'x'.repeat(40),
              timestamp: 5,
              tokenCount: 10,
            })),
            tokenCount: 10 * loadedCounters.length,
          };
          const store = new InMemoryMemoryStore();
          store.save(loaded);
          // The store that loaded the state, or one that loads it and keeps nothing.
          const service = new MemoryService('s', {
            store: newStore ? store : { load: () => loaded, save: () => undefined },
            params: engineParams({ preserveRecentTurns: 1 }),
          });
          let counter = 0;
          let transcript = new Set(loaded.messages.map((message) => message.id));
          for (const step of steps) {
            if (step < 0) {
              service.compact({ nowMs: 7 });
              transcript = new Set(service.state.messages.map((message) => message.id));
              continue;
            }
            let expected = `msg-${step}-${counter.toString(36)}`;
            while (transcript.has(expected)) expected = `msg-${step}-${(++counter).toString(36)}`;
            counter += 1;
            const message = service.addMessage(counter % 2 === 0 ? 'assistant' : 'user', 'y'.repeat(40), step);
            expect(message.id).toBe(expected);
            transcript.add(message.id);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
