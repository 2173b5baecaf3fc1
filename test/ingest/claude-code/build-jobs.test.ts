/**
 * What a build worker posts (`build-jobs.ts`): the response keys a session asked for cross as one
 * text and where each key ends (`packKeys`), and come back as the same strings in the same order,
 * whatever they hold (empty keys, separators, surrogates, keys that run into each other).
 *
 * Checked against a deliberate bug (it failed here): each key's end taken as its start plus its
 * length counted in code points, not UTF-16 units.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packKeys, unpackKeys } from '../../../src/ingest/claude-code/build-jobs.js';

const genKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', ':', 'msg_1:req_1', '\u0000', '\ud83d\ude00', '\ud800'),
);

describe('response keys posted by a build worker', () => {
  it('come back as the same strings, in order', () => {
    fc.assert(
      fc.property(fc.array(genKey, { maxLength: 30 }), (keys) => {
        const packed = packKeys(keys);
        expect(packed.ends.length).toBe(keys.length);
        expect(unpackKeys(packed)).toEqual(keys);
      }),
    );
  });

  it('cross a structured clone (as between threads) unchanged', () => {
    const keys = ['msg_a:req_a', '', 'é:日本', 'msg_a:req_a'];
    expect(unpackKeys(structuredClone(packKeys(keys)))).toEqual(keys);
  });
});
