/**
 * `Array.prototype.map` whose result is always a packed array of object elements
 * (`emptyObjectArray`), empty or not.
 *
 * V8's optimizing compiler inlines `map` and allocates the result at its full length before
 * filling it (a "holey" array), where the builtin that runs before optimization appends to a
 * packed one: the same line makes arrays of two kinds depending on whether its function has been
 * optimized yet. Code that iterates such arrays by the million (a replayed history, its messages'
 * parts, an item's tool calls) is then deoptimized ("wrong map") when the second kind first reaches
 * it, and compiled again. Appending keeps every result of one kind, whichever tier runs.
 */
export function mapPacked<T, U>(items: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out = emptyObjectArray<U>();
  for (let index = 0; index < items.length; index++) out.push(fn(items[index] as T, index));
  return out;
}

/**
 * An empty array already of the elements kind that arrays of objects have. `[]` starts as an
 * array of small integers and changes kind when its first object is pushed: code optimized while
 * it saw only arrays past that change is deoptimized ("not a Smi") by the next fresh one it pushes
 * to, and compiled again. For the arrays that hot code fills object by object (a replayed history,
 * its rendered segments, a cache path).
 */
export function emptyObjectArray<T>(): T[] {
  // `undefined` is not a small integer: the literal is made with object elements, which the cut keeps.
  const array = [undefined] as unknown as T[];
  array.length = 0;
  return array;
}

/** A copy of `items` with the elements kind of `emptyObjectArray`, whatever kind `items` has. */
export function objectArrayCopy<T>(items: readonly T[]): T[] {
  return mapPacked(items, (item) => item);
}

/**
 * `array.length = length`, skipped where it already is: V8's length setter is a call into its
 * runtime even when nothing changes (≈ 40 ns an array), and the replay's lists that keep the
 * previous send's prefix are cut on every send, mostly to the length they have.
 */
export function cutTo(array: unknown[], length: number): void {
  if (array.length !== length) array.length = length;
}
