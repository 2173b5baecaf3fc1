/** Every detector, one per flag kind of replay.md §9, in the order reports list them. */
import { blockedHookStorm } from './blocked-hook-storm.js';
import { cacheBust } from './cache-bust.js';
import { compactionStorm } from './compaction-storm.js';
import type { Detector } from './detector.js';
import { estimateDivergence } from './estimate-divergence.js';
import { neverCompacted } from './never-compacted.js';
import { nonConvergingOverflow } from './non-converging-overflow.js';
import { runawayCost } from './runaway-cost.js';
import { ttlMismatch } from './ttl-mismatch.js';

export const DETECTORS: readonly Detector[] = [
  runawayCost,
  neverCompacted,
  nonConvergingOverflow,
  compactionStorm,
  blockedHookStorm,
  cacheBust,
  estimateDivergence,
  ttlMismatch,
];
