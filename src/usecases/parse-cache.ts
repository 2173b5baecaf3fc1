/** Opening the parsed-line cache for a run (`ingest/parse-cache.ts`); the caller chooses the directory. */
import { openParseCache, type ParseCache } from '../ingest/parse-cache.js';

export type { ParseCache } from '../ingest/parse-cache.js';

/** The cache under `dir`, stamped with the run's start time; null when it cannot be used (nothing is cached). */
export function openRunParseCache(dir: string, mustExist: string | null): Promise<ParseCache | null> {
  return openParseCache(dir, { mustExist, nowMs: Date.now() });
}
