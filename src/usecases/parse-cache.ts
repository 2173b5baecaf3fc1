/** Opening the parsed-line cache for a run (`ingest/parse-cache.ts`); the caller chooses the directory. */
import { openParseCache, type ParseCache } from '../ingest/parse-cache.js';

export type { ParseCache } from '../ingest/parse-cache.js';

/**
 * The cache under `dir`, stamped with the run's start time; null when it cannot be used (nothing is
 * cached), `onUnusable` told why where `dir` itself is the problem.
 */
export function openRunParseCache(
  dir: string,
  mustExist: string | null,
  onUnusable?: (reason: string) => void,
): Promise<ParseCache | null> {
  return openParseCache(dir, { mustExist, nowMs: Date.now(), ...(onUnusable === undefined ? {} : { onUnusable }) });
}
