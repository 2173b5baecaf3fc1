/** Arbitraries shared by the properties that price rows against the bundled table (SQL and TypeScript). */
import fc from 'fast-check';

/** Models with several price windows in the bundled table, paired with their own window boundaries. */
export const WINDOWED: readonly [string, number][] = [
  ['claude-sonnet-5', Date.parse('2026-09-01T00:00:00Z')],
  ['deepseek-chat', Date.parse('2025-09-05T00:00:00Z')],
  ['deepseek-chat', Date.parse('2025-09-29T00:00:00Z')],
];

/** A windowed model at one of its boundaries, ± 1 ms. */
export const windowedArb = fc
  .tuple(fc.constantFrom(...WINDOWED), fc.integer({ min: -1, max: 1 }))
  .map(([[model, boundaryMs], d]) => ({ model, timestampMs: boundaryMs + d }));
