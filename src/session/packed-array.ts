/**
 * `Array.prototype.map` whose result is always a packed array.
 *
 * V8's optimizing compiler inlines `map` and allocates the result at its full length before
 * filling it (a "holey" array), where the builtin that runs before optimization appends to a
 * packed one: the same line makes arrays of two kinds depending on whether its function has been
 * optimized yet. Code that iterates such arrays by the million (a replayed history, its messages'
 * parts, an item's tool calls) is then deoptimized ("wrong map") when the second kind first reaches
 * it, and compiled again. Appending keeps every result of one kind, whichever tier runs.
 */
export function mapPacked<T, U>(items: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let index = 0; index < items.length; index++) out.push(fn(items[index] as T, index));
  return out;
}
