import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyObjectArray, mapPacked, objectArrayCopy } from '../../src/session/packed-array.js';

describe('mapPacked', () => {
  it('is Array.prototype.map: the same elements, each mapped with its index, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.integer(), fc.object())), (items) => {
        const seen: [unknown, number][] = [];
        const mapped = mapPacked(items, (item, index) => {
          seen.push([item, index]);
          return { item, index };
        });
        expect(mapped).toEqual(items.map((item, index) => ({ item, index })));
        expect(seen).toEqual(items.map((item, index) => [item, index]));
      }),
    );
  });

  it('returns a new array, never its input', () => {
    const items = [1, 2];
    expect(mapPacked(items, (item) => item)).not.toBe(items);
    expect(mapPacked([], (item) => item)).toEqual([]);
  });
});

describe('emptyObjectArray and objectArrayCopy', () => {
  it('are empty arrays and copies like any other', () => {
    const empty = emptyObjectArray<{ readonly n: number }>();
    expect(empty).toEqual([]);
    empty.push({ n: 1 });
    expect(empty).toEqual([{ n: 1 }]);
    expect(emptyObjectArray()).not.toBe(emptyObjectArray());
    fc.assert(
      fc.property(fc.array(fc.anything()), (items) => {
        const copy = objectArrayCopy(items);
        expect(copy).toEqual(items);
        expect(copy).not.toBe(items);
      }),
    );
  });
});
