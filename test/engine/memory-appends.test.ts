/**
 * `MemoryService` appends a message in place while nobody holds its state, and copies the
 * transcript first once somebody does (`state`, a store that keeps what it saves). The property:
 * whatever the order of appends, reads and compactions, a state read once never changes
 * afterwards, and the service ends where one read after every step ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryState } from '../../src/engine/index.js';
import { InMemoryMemoryStore, MemoryService } from '../../src/engine/index.js';

type Step =
  | { readonly kind: 'add'; readonly role: 'user' | 'assistant'; readonly chars: number }
  | { readonly kind: 'read' }
  | { readonly kind: 'compact' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant'),
      chars: fc.nat({ max: 400 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
);

describe('MemoryService appends in place only while no one holds the state', () => {
  it('never changes a state once read, and ends where reading after every step ends', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40, size: 'max' }), fc.boolean(), (steps, withStore) => {
        const service = new MemoryService('s', withStore ? { store: new InMemoryMemoryStore() } : {});
        const reference = new MemoryService('s');
        const read: { readonly state: MemoryState; readonly json: string }[] = [];
        let t = 1_000;
        for (const step of steps) {
          t += 10;
          for (const memory of [service, reference]) {
            if (step.kind === 'add') memory.addMessage(step.role, 'x'.repeat(step.chars), t);
            else if (step.kind === 'compact') memory.compact({ nowMs: t });
          }
          read.push({ state: reference.state, json: JSON.stringify(reference.state) });
          if (step.kind === 'read') read.push({ state: service.state, json: JSON.stringify(service.state) });
        }
        for (const { state, json } of read) expect(JSON.stringify(state)).toBe(json);
        expect(service.state).toEqual(reference.state);
      }),
      { numRuns: 300 },
    );
  });
});
