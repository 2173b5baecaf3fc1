/**
 * The provider cache rules moved to `src/provider/cache-rules.ts` (below both `cost` and
 * `simulate`, so that neither imports the other in a circle). This re-export keeps the replay's
 * import working while `replay.ts` is being split; new code imports from `../provider/`.
 */
export type { CacheRules, CacheTtl } from '../provider/cache-rules.js';
