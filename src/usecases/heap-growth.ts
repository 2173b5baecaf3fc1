/**
 * Bounded heap growth while a run holds a large session. Between two full collections V8 lets
 * the old generation grow to about twice what the last one left alive; that is cheap while the
 * heap is small, but a replay holds a whole session's content (a 1 GB transcript: ~0.5 GB of
 * strings) while it walks it several times, and at twice that a run's memory doubles. Once the
 * heap in use passes `LARGE_HEAP_BYTES`, V8 is asked to grow the old generation by at most
 * `BOUNDED_GROWTH_PERCENT` between full collections (more full collections: CPU for memory); below
 * it, V8 decides as usual, so runs over ordinary sessions pay nothing.
 *
 * `--heap-growing-percent` is read each time V8 sets the next collection's limit, so setting it
 * while running takes effect at the next full collection (measured: `bench/simulate-speed.mjs --big`).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Heap in use above which growth is bounded. */
export const LARGE_HEAP_BYTES = 256 * 1024 * 1024;
/** The old generation's growth between full collections once the heap is large (V8's own: up to ~100%). */
export const BOUNDED_GROWTH_PERCENT = 30;

/**
 * The policy for one run: `check` where the heap may have grown (a session loaded), `release`
 * where a large session was just let go, `stop` at the end.
 */
export type HeapGrowthPolicy = { readonly check: () => void; readonly release: () => void; readonly stop: () => void };

/**
 * V8's full collection on demand (`gc`, exposed for this and hidden again), or null where the
 * runtime refuses. Only `release` uses it: once per run, after a large session is let go.
 */
function fullCollection(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? () => void gc() : null;
  } catch {
    return null;
  }
}

/**
 * Starts the policy, bounded: nothing tells how large the first session is before it is read,
 * and its reading is synchronous (no observer runs during it), while the limit V8 sets at one
 * full collection holds until the next, so a bound set only once the heap is seen large comes a
 * whole (up to 4×) growth late. From then on the heap is checked wherever the caller calls `check`
 * (a session just read, before its long synchronous replay): below `LARGE_HEAP_BYTES`, V8's
 * default again; a collection observed above it bounds the growth again. `stop` restores V8's
 * default.
 */
export function boundHeapGrowthWhenLarge(): HeapGrowthPolicy {
  let bounded = false;
  const set = (large: boolean): void => {
    if (large === bounded) return;
    bounded = large;
    setFlagsFromString(`--heap-growing-percent=${large ? BOUNDED_GROWTH_PERCENT : 0}`);
  };
  set(true);
  const large = (): boolean => getHeapStatistics().used_heap_size > LARGE_HEAP_BYTES;
  const check = (): void => set(large());
  // A collection seen while reading only ever bounds the growth: the first session may still be
  // growing past a small heap, and only a session boundary (`check`) says what the run holds.
  const observer = new PerformanceObserver(() => {
    if (large()) set(true);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    check,
    // The session loop has let go of a large session: its content is garbage, but V8 collects it
    // only when the heap reaches the limit set while the session was alive, and what comes next
    // (the rows' inserts, DuckDB's own memory, the report) would sit beside it until then: the
    // run's peak on a 1 GB transcript (1.2 GB). One full collection frees it first.
    release: () => {
      if (!large()) return;
      fullCollection()?.();
      check();
    },
    stop: () => {
      observer.disconnect();
      set(false);
    },
  };
}
