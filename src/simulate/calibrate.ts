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
  /** The request's model: the static block is measured per model where the log allows (`withStaticBlockPerModel`). */
  readonly model?: string;
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
  /**
   * The static block per model where the log has enough requests of it (`withStaticBlockPerModel`);
   * `staticBlockTokens` stands for any other model.
   */
  readonly staticBlockTokensByModel?: Readonly<Record<string, number>>;
};

/** FreeCode's own estimator's ratio (engine.md §1.1) when nothing better is known. */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** The analyzer's assumed system+tools block (engine.md §9.1 `DEFAULT_SYSTEM_TOKENS`). */
export const DEFAULT_STATIC_BLOCK_TOKENS = 12_000;

/** A point's y in the linear model: `prompt − ½·n` (the module comment). */
function fitY(p: CalibrationPoint): number {
  return p.promptTokens - 0.5 * p.visibleSegments;
}

/** Fits S and k; falls back to the default ratio (fitting only S) when the chars do not vary. */
export function calibrateTokens(points: readonly CalibrationPoint[]): TokenCalibration {
  const usable = points.filter((p) => p.promptTokens > 0);
  if (usable.some((p) => (p.restartGroup ?? 0) > 0)) {
    const grouped = calibrateInCells(usable, false);
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
  // Each point's x and y read where needed, not collected into arrays first: an array made by `map`
  // is of one elements kind before optimization and another after (`mapPacked`), and the second
  // threw the optimized code away. The sums run in the same order as before, so the same bits.
  const n = usable.length;
  let sumX = 0;
  let sumY = 0;
  for (const p of usable) {
    sumX += p.visibleChars;
    sumY += fitY(p);
  }
  const meanX = sumX / n;
  const meanY = sumY / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of usable) {
    const dx = p.visibleChars - meanX;
    sxx += dx * dx;
    sxy += dx * (fitY(p) - meanY);
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
  const residuals = usable.map((p) => fitY(p) - k * p.visibleChars).sort((a, b) => a - b);
  const median = residuals[Math.floor(residuals.length / 2)] ?? 0;
  return { tokensPerChar: k, staticBlockTokens: Math.max(0, Math.round(median)), source: 'ratio-default', points: n };
}

/** Tokens of a segment of `chars` characters under a calibration (the generator's ceil rule). */
export function tokensForChars(chars: number, calibration: TokenCalibration): number {
  if (chars <= 0) return 0;
  // The epsilon keeps an exact fit (k = 1/cpt recovered to ~1e-12) on the right side of ceil.
  return Math.ceil(chars * calibration.tokensPerChar - 1e-9);
}

type Sums = { n: number; sx: number; sy: number; sxx: number; sxy: number };

function add<K>(sums: Map<K, Sums>, key: K, x: number, y: number): void {
  const acc = sums.get(key) ?? { n: 0, sx: 0, sy: 0, sxx: 0, sxy: 0 };
  acc.n += 1;
  acc.sx += x;
  acc.sy += y;
  acc.sxx += x * x;
  acc.sxy += x * y;
  sums.set(key, acc);
}

/**
 * The fit when the requests fall into cells that differ by a block the log does not show: the
 * stretches between chain-restarting compactions (each re-attaches its own), and with `perModel`
 * the models (each sends its own static block): prompt − ½·n = S + k·chars + h_g (+ the model's
 * offset, `withStaticBlockPerModel`). k comes from the variation within each cell (pooled), so no
 * offset between cells tilts it; S from the first stretch; h_g from each later stretch's mean
 * (never below 0). Null when the caller's single line is the better choice (no first stretch, an
 * implausible ratio).
 */
function calibrateInCells(usable: readonly CalibrationPoint[], perModel: boolean): TokenCalibration | null {
  const stretches = new Map<number, Sums>();
  const cells = new Map<string, Sums>();
  for (const p of usable) {
    const x = p.visibleChars;
    const y = fitY(p);
    const stretch = p.restartGroup ?? 0;
    add(stretches, stretch, x, y);
    add(cells, perModel ? `${stretch}\u0000${p.model ?? ''}` : String(stretch), x, y);
  }
  const first = stretches.get(0);
  if (first === undefined) return null;
  let sxx = 0;
  let sxy = 0;
  for (const acc of cells.values()) {
    sxx += acc.sxx - (acc.sx * acc.sx) / acc.n;
    sxy += acc.sxy - (acc.sx * acc.sy) / acc.n;
  }
  const slope = sxx > 0 ? sxy / sxx : Number.NaN;
  if (!Number.isFinite(slope) || slope < 1 / 12 || slope > 1) return null;
  const interceptOf = (acc: Sums) => acc.sy / acc.n - (slope * acc.sx) / acc.n;
  const intercept = interceptOf(first);
  if (intercept < 0) return null;
  const lastStretch = Math.max(...stretches.keys());
  const restoredTokens: number[] = [];
  for (let g = 1; g <= lastStretch; g++) {
    const acc = stretches.get(g);
    restoredTokens.push(acc === undefined ? 0 : Math.max(0, Math.round(interceptOf(acc) - intercept)));
  }
  return {
    tokensPerChar: slope,
    staticBlockTokens: Math.round(intercept),
    source: 'fitted',
    points: usable.length,
    ...(restoredTokens.length > 0 ? { restoredTokens } : {}),
  };
}

/** Requests of a model the log needs before that model's static block replaces the session's. */
export const MIN_MODEL_STATIC_POINTS = 3;

/**
 * The static block per model (replay.md §5): an agent sends a different system+tools block per
 * model (Claude Code 2.1.x: per model and per call kind; side calls are billed as measured, so
 * only main-thread calls reach this fit). The ratio is one per session (the content is the same
 * text); each model's block is the session's plus the median residual of that model's requests,
 * a median so that a single odd request cannot move it. A model with fewer than
 * `MIN_MODEL_STATIC_POINTS` requests, or a session of one model, keeps the session's block.
 */
export function withStaticBlockPerModel(
  calibration: TokenCalibration,
  points: readonly CalibrationPoint[],
): TokenCalibration {
  if (calibration.source === 'defaults') return calibration;
  const residuals = new Map<string, number[]>();
  for (const p of points) {
    if (p.model === undefined || p.promptTokens <= 0) continue;
    const group = p.restartGroup ?? 0;
    const restored = group > 0 ? (calibration.restoredTokens?.[group - 1] ?? 0) : 0;
    const predicted = calibration.staticBlockTokens + restored + calibration.tokensPerChar * p.visibleChars;
    const residual = fitY(p) - predicted;
    const list = residuals.get(p.model);
    if (list === undefined) residuals.set(p.model, [residual]);
    else list.push(residual);
  }
  if (residuals.size < 2) return calibration;
  const byModel: Record<string, number> = {};
  let any = false;
  for (const [model, list] of [...residuals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (list.length < MIN_MODEL_STATIC_POINTS) continue;
    const sorted = [...list].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
    byModel[model] = Math.max(0, Math.round(calibration.staticBlockTokens + median));
    any = true;
  }
  return any ? { ...calibration, staticBlockTokensByModel: byModel } : calibration;
}

/** The calibration as a request on `model` sees it: that model's static block where it was measured. */
export function calibrationForModel(calibration: TokenCalibration, model: string): TokenCalibration {
  const own = calibration.staticBlockTokensByModel?.[model];
  return own === undefined || own === calibration.staticBlockTokens
    ? calibration
    : { ...calibration, staticBlockTokens: own };
}

/**
 * `calibrationForModel` of each model, made once per model: the lookup a walk and the pricing of a
 * recorded walk make for every prompt they render.
 */
export function calibrationsByModel(calibration: TokenCalibration): (model: string) => TokenCalibration {
  if (calibration.staticBlockTokensByModel === undefined) return () => calibration;
  const byModel = new Map<string, TokenCalibration>();
  return (model) => {
    let own = byModel.get(model);
    if (own === undefined) {
      own = calibrationForModel(calibration, model);
      byModel.set(model, own);
    }
    return own;
  };
}

/**
 * The session's calibration: a line with each model's static block as an offset on it
 * (`withStaticBlockPerModel`). Two lines are candidates when the session has several models: one
 * fitted across the models (their spread of sizes steadies the ratio, but a model sending a much
 * larger block tilts it) and one fitted within each model (no offset tilts it, but hidden jumps
 * inside one model weigh more). The one whose prediction of the measured prompts has the lower
 * median relative error is taken, the across-models line on a tie.
 */
export function calibrateSession(points: readonly CalibrationPoint[]): TokenCalibration {
  const across = withStaticBlockPerModel(calibrateTokens(points), points);
  if (across.staticBlockTokensByModel === undefined) return across;
  const usable = points.filter((p) => p.promptTokens > 0);
  const line = calibrateInCells(usable, true);
  if (line === null) return across;
  const within = withStaticBlockPerModel(line, points);
  return medianFitError(within, usable) < medianFitError(across, usable) ? within : across;
}

/** Median over the points of |predicted − measured| / measured prompt under a calibration. */
function medianFitError(calibration: TokenCalibration, points: readonly CalibrationPoint[]): number {
  const errors = points.map((p) => {
    const group = p.restartGroup ?? 0;
    const restored = group > 0 ? (calibration.restoredTokens?.[group - 1] ?? 0) : 0;
    const block =
      p.model === undefined
        ? calibration.staticBlockTokens
        : calibrationForModel(calibration, p.model).staticBlockTokens;
    const predicted = block + restored + calibration.tokensPerChar * p.visibleChars + 0.5 * p.visibleSegments;
    return Math.abs(predicted - p.promptTokens) / p.promptTokens;
  });
  errors.sort((a, b) => a - b);
  const mid = Math.floor(errors.length / 2);
  return errors.length % 2 === 1 ? (errors[mid] ?? 0) : ((errors[mid - 1] ?? 0) + (errors[mid] ?? 0)) / 2;
}
