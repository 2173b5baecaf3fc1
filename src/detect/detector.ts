/**
 * The contract every detector meets: a pure function of one session's traces, the price table
 * and the thresholds, returning at most one flag for the examined trace.
 */
import type { PriceTable } from '../cost/index.js';
import type { Session } from '../session/model.js';
import type { CacheRules } from '../provider/cache-rules.js';
import type { Flag, FlagKind } from './flag.js';
import type { FlagThresholds } from './thresholds.js';
import type { Trace } from './trace.js';

export type DetectorInput = {
  readonly session: Session;
  /** What is examined: `recorded` or a simulated scenario. */
  readonly trace: Trace;
  /** The default-target scenario (`freecode@120000`), the comparison for dollars at stake. */
  readonly baseline: Trace;
  /**
   * The default-target scenario replayed with the session's PreCompact hook allowing (null when no
   * hook blocks). A call, not a value: the replay is an engine walk of the whole session, made on
   * the first call and only for a detector that needs it.
   */
  readonly hookAllowedBaseline: () => Trace | null;
  readonly prices: PriceTable;
  /** The provider cache rules of a model (data from the price table). */
  readonly cacheRules: (model: string) => CacheRules;
  readonly thresholds: FlagThresholds;
};

export type Detector = {
  readonly kind: FlagKind;
  readonly detect: (input: DetectorInput) => Flag | null;
};
