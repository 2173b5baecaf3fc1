import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFreecodeSession } from '../../../src/ingest/freecode/build.js';
import { conversation, expectedItems, inputFor, write } from './conversation.js';

describe('joining a rollout with any compacted tail of its store (differential against the written conversation)', () => {
  // Deliberate bugs checked once, each makes this property fail:
  // - run starts taken at every model.request, ignoring turnId (timeline.ts): extra user items;
  // - the promptChars residue not subtracting the known items (build.ts growthResidue): prompts too large.
  it('recovers every item size, every text some source has, and every request, whatever the cut', () => {
    fc.assert(
      fc.property(
        conversation.chain((runs) => fc.tuple(fc.constant(runs), fc.nat(runs.length - 1))),
        ([runs, cut]) => {
          const written = write(runs);
          const session = buildFreecodeSession(inputFor(written, cut), { content: 'text' });
          expect(session.issues).toEqual([]);
          expect(session.items.map((i) => ({ kind: i.kind, chars: i.chars, text: i.text }))).toEqual(
            expectedItems(runs, cut),
          );
          expect(session.requests.map((r) => r.usage)).toEqual(written.usages);
          for (const request of session.requests) expect(session.items[request.itemIndex]?.kind).toBe('assistant');
        },
      ),
    );
  });

  it('gives the same requests and item sizes from the full store with or without the rollout', () => {
    fc.assert(
      fc.property(conversation, (runs) => {
        const written = write(runs);
        const joined = buildFreecodeSession(inputFor(written, 0), { content: 'text' });
        const storeOnly = buildFreecodeSession({ ...inputFor(written, 0), rollout: null }, { content: 'text' });
        expect(storeOnly.issues).toEqual([]);
        expect(storeOnly.items.map((i) => [i.kind, i.chars, i.text])).toEqual(
          joined.items.map((i) => [i.kind, i.chars, i.text]),
        );
        expect(storeOnly.requests.map((r) => [r.itemIndex, r.usage])).toEqual(
          joined.requests.map((r) => [r.itemIndex, r.usage]),
        );
      }),
    );
  });
});
