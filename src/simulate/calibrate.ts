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
};

export type TokenCalibration = {
  /** Tokens per character (1 / chars-per-token). */
  readonly tokensPerChar: number;
  /** Tokens of the static system+tools block (segment 0). */
  readonly staticBlockTokens: number;
  /** Where the numbers came from: a fit, or defaults when the log has too few measurements. */
  readonly source: 'fitted' | 'ratio-default' | 'defaults';
  readonly points: number;
};

/** FreeCode's own estimator's ratio (engine.md §1.1) when nothing better is known. */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** The analyzer's assumed system+tools block (engine.md §9.1 `DEFAULT_SYSTEM_TOKENS`). */
export const DEFAULT_STATIC_BLOCK_TOKENS = 12_000;

/** Fits S and k; falls back to the default ratio (fitting only S) when the chars do not vary. */
export function calibrateTokens(points: readonly CalibrationPoint[]): TokenCalibration {
  const usable = points.filter((p) => p.promptTokens > 0);
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
