/**
 * Token sizes (replay.md §5): a per-session, per-model characters-per-token ratio and the size of
 * the static system+tools block, fitted from the measured prompts of the `recorded` replay.
 *
 * Model: a measured prompt = S + Σ ceil(chars_j / cpt) over its visible segments. With
 * k = 1 / cpt and the ceilings approximated by +½ token per segment this is linear,
 * `prompt − ½·n = S + k·chars`, so S and k are a least-squares line through the requests.
 * Pruning and compaction only change which characters are visible, not the ratio, so the fit
 * holds across them.
 */

/** One measured request of the recorded replay: what was visible and what the provider counted. */
export type CalibrationPoint = {
  readonly promptTokens: number;
  /** Σ characters of the visible segments after the static block. */
  readonly visibleChars: number;
  /** Number of visible segments after the static block. */
  readonly visibleSegments: number;
  /**
   * How many compactions that restart the log's chain came before the request (0 when none):
   * after one, the agent re-attaches context the log does not show (Claude Code restores the
   * files it had read, formats.md §1.7), so each such stretch has its own hidden block.
   */
  readonly restartGroup?: number;
};

export type TokenCalibration = {
  /** Tokens per character (1 / chars-per-token). */
  readonly tokensPerChar: number;
  /** Tokens of the static system+tools block (segment 0). */
  readonly staticBlockTokens: number;
  /** Where the numbers came from: a fit, or defaults when the log has too few measurements. */
  readonly source: 'fitted' | 'ratio-default' | 'defaults';
  readonly points: number;
  /**
   * Tokens the agent re-attached after each chain-restarting compaction (in log order) that the
   * log does not show, measured as what the prompts after it carry beyond the visible content;
   * absent when the log has no such compaction or the fit could not tell.
   */
  readonly restoredTokens?: readonly number[];
};

/** FreeCode's own estimator's ratio (engine.md §1.1) when nothing better is known. */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** The analyzer's assumed system+tools block (engine.md §9.1 `DEFAULT_SYSTEM_TOKENS`). */
export const DEFAULT_STATIC_BLOCK_TOKENS = 12_000;

/** Fits S and k; falls back to the default ratio (fitting only S) when the chars do not vary. */
export function calibrateTokens(points: readonly CalibrationPoint[]): TokenCalibration {
  const usable = points.filter((p) => p.promptTokens > 0);
  if (usable.some((p) => (p.restartGroup ?? 0) > 0)) {
    const grouped = calibrateWithRestarts(usable);
    if (grouped !== null) return grouped;
  }
  if (usable.length === 0) {
    return {
      tokensPerChar: 1 / DEFAULT_CHARS_PER_TOKEN,
      staticBlockTokens: DEFAULT_STATIC_BLOCK_TOKENS,
      source: 'defaults',
      points: 0,
    };
  }
  const ys = usable.map((p) => p.promptTokens - 0.5 * p.visibleSegments);
  const xs = usable.map((p) => p.visibleChars);
  const n = usable.length;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - meanX;
    sxx += dx * dx;
    sxy += dx * ((ys[i] ?? 0) - meanY);
  }
  const slope = sxx > 0 ? sxy / sxx : Number.NaN;
  // A plausible ratio lies between 1 and 12 characters per token; outside it the fit is noise
  // (e.g. hidden context the log does not show), and the default ratio is the safer choice.
  if (Number.isFinite(slope) && slope >= 1 / 12 && slope <= 1) {
    const intercept = meanY - slope * meanX;
    if (intercept >= 0) {
      return { tokensPerChar: slope, staticBlockTokens: Math.round(intercept), source: 'fitted', points: n };
    }
  }
  const k = 1 / DEFAULT_CHARS_PER_TOKEN;
  const residuals = usable.map((p, i) => (ys[i] ?? 0) - k * p.visibleChars).sort((a, b) => a - b);
  const median = residuals[Math.floor(residuals.length / 2)] ?? 0;
  return { tokensPerChar: k, staticBlockTokens: Math.max(0, Math.round(median)), source: 'ratio-default', points: n };
}

/** Tokens of a segment of `chars` characters under a calibration (the generator's ceil rule). */
export function tokensForChars(chars: number, calibration: TokenCalibration): number {
  if (chars <= 0) return 0;
  // The epsilon keeps an exact fit (k = 1/cpt recovered to ~1e-12) on the right side of ceil.
  return Math.ceil(chars * calibration.tokensPerChar - 1e-9);
}

/**
 * The fit when compactions restart the chain: prompt − ½·n = S + k·chars + h_g, where h_g is the
 * hidden block of stretch g (h_0 = 0, before the first restart). k comes from the variation
 * within each stretch (pooled), S from the first stretch, h_g from each later stretch's mean
 * (never below 0). Null when a stretch-free fit is the better choice (no first stretch, an
 * implausible ratio): the caller fits without hidden blocks.
 */
function calibrateWithRestarts(usable: readonly CalibrationPoint[]): TokenCalibration | null {
  const groups = new Map<number, { n: number; sx: number; sy: number; sxx: number; sxy: number }>();
  for (const p of usable) {
    const g = p.restartGroup ?? 0;
    const x = p.visibleChars;
    const y = p.promptTokens - 0.5 * p.visibleSegments;
    const acc = groups.get(g) ?? { n: 0, sx: 0, sy: 0, sxx: 0, sxy: 0 };
    acc.n += 1;
    acc.sx += x;
    acc.sy += y;
    acc.sxx += x * x;
    acc.sxy += x * y;
    groups.set(g, acc);
  }
  const first = groups.get(0);
  if (first === undefined) return null;
  let sxx = 0;
  let sxy = 0;
  for (const acc of groups.values()) {
    sxx += acc.sxx - (acc.sx * acc.sx) / acc.n;
    sxy += acc.sxy - (acc.sx * acc.sy) / acc.n;
  }
  const slope = sxx > 0 ? sxy / sxx : Number.NaN;
  if (!Number.isFinite(slope) || slope < 1 / 12 || slope > 1) return null;
  const interceptOf = (acc: { n: number; sx: number; sy: number }) => acc.sy / acc.n - (slope * acc.sx) / acc.n;
  const intercept = interceptOf(first);
  if (intercept < 0) return null;
  const lastGroup = Math.max(...groups.keys());
  const restoredTokens: number[] = [];
  for (let g = 1; g <= lastGroup; g++) {
    const acc = groups.get(g);
    restoredTokens.push(acc === undefined ? 0 : Math.max(0, Math.round(interceptOf(acc) - intercept)));
  }
  return {
    tokensPerChar: slope,
    staticBlockTokens: Math.round(intercept),
    source: 'fitted',
    points: usable.length,
    restoredTokens,
  };
}
