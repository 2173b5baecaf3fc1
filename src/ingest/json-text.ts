/**
 * `JSON.stringify` of a value read from a log, bounded in depth. `JSON.parse` is iterative and
 * accepts any nesting, but `JSON.stringify` recurses and throws "Maximum call stack size exceeded"
 * somewhere past a few thousand levels (the exact depth depends on the stack in use), which would
 * abort the reading of the whole file. The depth is checked first, iteratively, against a fixed
 * bound, so the outcome is the same on every run: too deep → `JsonTooDeepError`, which each line
 * reader turns into an ingest issue on that one line.
 */

import type { ContentMode } from './content-mode.js';

/** Deeper than any tool input an agent sends (real ones nest a handful of levels). */
export const MAX_JSON_DEPTH = 1000;

export class JsonTooDeepError extends Error {
  constructor() {
    super(`value nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** True when `value` nests arrays/objects more than `limit` levels deep (iterative: any depth is safe). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: { readonly value: object; readonly depth: number }[] = [{ value, depth: 1 }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (entry.depth > limit) return true;
    const children: readonly unknown[] = Array.isArray(entry.value) ? entry.value : Object.values(entry.value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: entry.depth + 1 });
    }
  }
  return false;
}

/** Throws `JsonTooDeepError` when `value` nests too deeply for `jsonText`. */
export function checkJsonDepth(value: unknown): void {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new JsonTooDeepError();
}

/** `JSON.stringify(value)`; throws `JsonTooDeepError` (never a RangeError) when it nests too deeply. */
export function jsonText(value: unknown): string {
  checkJsonDepth(value);
  // JSON.stringify(undefined) is undefined; callers that can pass it handle `?? '{}'` themselves.
  return JSON.stringify(value);
}

/**
 * A tool call's arguments as text (`jsonText`), or, in `usage` mode, where no arguments text is
 * read (only the sizes of items need it, and those may be left out), `''` after the same depth
 * check: a line too deep to read is the same ingest issue in every mode. Serializing the arguments
 * was ≈ 5 % of `report`'s CPU on the FreeCode benchmark corpus.
 */
export function argumentsText(value: unknown, content: ContentMode): string {
  if (content !== 'usage') return jsonText(value);
  checkJsonDepth(value);
  return '';
}

/** The reason to report for an error thrown while reading one line, when it is a depth failure. */
export function tooDeepReason(error: unknown): string | null {
  return error instanceof JsonTooDeepError ? error.message : null;
}
