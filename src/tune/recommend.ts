/**
 * The recommended target on one cost curve, and the best of several curves (replay.md §10).
 *
 * Rule: among the curve's targets that cost less than `recorded`, take the **largest target whose
 * cost is within the tolerance of the cheapest point** (default 2%). A larger target compacts
 * less often and summarizes less context away, which is what a lower target gives up; inside the
 * tolerance the dollars barely differ, so the choice that keeps more context wins. Costs are
 * compared exactly, in integer pico-dollars. The knee (`knee.ts`) describes the curve's shape and
 * is reported beside the recommendation, not substituted for it: on a valley-shaped curve it sits
 * at the bottom, and the rule lands at or just above it.
 */
import type { CurveKnob } from '../simulate/scenario.js';
import type { Knee } from './knee.js';

export type RecommendationPoint = {
  readonly scenario: string;
  /** The value of the curve's knob at this point: the target on a target curve, M, or the trigger. */
  readonly targetTokens: number;
  readonly costPicoUsd: bigint;
  readonly compactions: number;
  readonly sessions: number;
  readonly summarizedAwayTokens: number;
};

export type Recommendation =
  | {
      readonly kind: 'target';
      readonly series: string;
      /** What the recommended value is a value of. */
      readonly knob: CurveKnob;
      readonly point: RecommendationPoint;
      /** The cheapest point of the curve (may be the recommended one). */
      readonly cheapest: RecommendationPoint;
      readonly savingVsRecordedPicoUsd: bigint;
      readonly savingVsRecordedPct: number;
      readonly knee: Knee | null;
      readonly reason: string;
    }
  | {
      readonly kind: 'keep-recorded';
      readonly series: string;
      readonly cheapest: RecommendationPoint;
      readonly reason: string;
    }
  | { readonly kind: 'unpriced'; readonly series: string | null; readonly reason: string }
  | { readonly kind: 'no-curve'; readonly reason: string };

export type CurveInput = {
  readonly series: string;
  readonly knob: CurveKnob;
  /** The curve's points in ascending target; cost null = not fully priced. */
  readonly points: ReadonlyArray<
    Omit<RecommendationPoint, 'costPicoUsd'> & {
      readonly costPicoUsd: bigint | null;
      readonly unpricedRequests: number;
    }
  >;
  readonly knee: Knee | null;
};

/** The recorded scenario's cost for the same sessions; null when not fully priced. */
export type RecordedCost = { readonly costPicoUsd: bigint | null; readonly unpricedRequests: number };

/** Token counts in sentences: `950`, `40K`, `512.5K`, `1.27M` (at most three significant decimals). */
export function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${Number((tokens / 1_000_000).toFixed(2))}M`;
  if (tokens >= 1_000) return `${Number((tokens / 1_000).toFixed(1))}K`;
  return String(tokens);
}

/** USD with cents, or four decimals under a dollar (display only; exact values are in the JSON/CSV). */
export function formatUsd(picoUsd: bigint): string {
  const negative = picoUsd < 0n;
  const magnitude = Number(negative ? -picoUsd : picoUsd) / 1e12;
  const text = magnitude >= 1 ? magnitude.toFixed(2) : magnitude.toFixed(4);
  return `${negative ? '-' : ''}$${text}`;
}

/** A knob's value in sentences: token counts compact (`120K`), M as a count. */
export function formatKnobValue(knob: CurveKnob, value: number): string {
  return knob === 'keep-results' ? String(value) : formatTokens(value);
}

/** What the knob is called in sentences. */
function knobNoun(knob: CurveKnob): string {
  switch (knob) {
    case 'target':
      return 'target';
    case 'keep-results':
      return 'M';
    case 'clear-trigger':
      return 'trigger';
    case 'prune-protect':
      return 'protected budget';
    default: {
      const unreachable: never = knob;
      return unreachable;
    }
  }
}

/** The recommended setting as an instruction: `freecode at 120K`, `mask tool results older than 6`. */
function setting(series: string, knob: CurveKnob, value: number): string {
  switch (knob) {
    case 'target':
      return `${series} at ${formatTokens(value)}`;
    case 'keep-results':
      return `mask tool results older than ${value} (${series})`;
    case 'clear-trigger':
      return `clear old tool results above ${formatTokens(value)} prompt tokens (${series})`;
    case 'prune-protect':
      return `prune tool outputs beyond the last ${formatTokens(value)} tokens of them (${series})`;
    default: {
      const unreachable: never = knob;
      return unreachable;
    }
  }
}

function pctOf(part: bigint, whole: bigint): number {
  // Exact to 1e-6 of a percent: the division is done in integers before the one conversion.
  return Number((part * 100_000_000n) / whole) / 1_000_000;
}

function perSession(count: number, sessions: number): string {
  return sessions === 0 ? '0' : (count / sessions).toFixed(1);
}

/**
 * The recommendation on one curve. `toleranceBasisPoints`: how far above the cheapest point a
 * target may cost and still be preferred for keeping more context (200 = 2%).
 */
export function recommendOnCurve(
  curve: CurveInput,
  recorded: RecordedCost,
  toleranceBasisPoints: number,
): Recommendation {
  if (curve.points.length === 0) return { kind: 'no-curve', reason: `the ${curve.series} curve has no points` };
  const unpriced = curve.points.reduce((sum, point) => sum + point.unpricedRequests, 0);
  const priced: RecommendationPoint[] = [];
  for (const point of curve.points)
    if (point.costPicoUsd !== null) priced.push({ ...point, costPicoUsd: point.costPicoUsd });
  if (
    unpriced > 0 ||
    priced.length < curve.points.length ||
    recorded.costPicoUsd === null ||
    recorded.unpricedRequests > 0
  ) {
    return {
      kind: 'unpriced',
      series: curve.series,
      reason: `no recommendation on ${curve.series}: some requests have no price (${unpriced + recorded.unpricedRequests} on the curve and recorded); add their models with --pricing`,
    };
  }
  const recordedPicoUsd = recorded.costPicoUsd;
  let cheapest = priced[0];
  for (const point of priced) if (cheapest === undefined || point.costPicoUsd < cheapest.costPicoUsd) cheapest = point;
  if (cheapest === undefined) return { kind: 'no-curve', reason: `the ${curve.series} curve has no points` };
  if (cheapest.costPicoUsd >= recordedPicoUsd) {
    return {
      kind: 'keep-recorded',
      series: curve.series,
      cheapest,
      reason:
        `keep the recorded policy: no ${curve.series} ${knobNoun(curve.knob)} from ${formatKnobValue(curve.knob, priced[0]?.targetTokens ?? 0)} to ${formatKnobValue(curve.knob, priced[priced.length - 1]?.targetTokens ?? 0)} ` +
        `costs less than what the agent ran (${formatUsd(recordedPicoUsd)}; cheapest ${formatUsd(cheapest.costPicoUsd)} at ${formatKnobValue(curve.knob, cheapest.targetTokens)})`,
    };
  }
  const limit = cheapest.costPicoUsd * BigInt(10_000 + toleranceBasisPoints);
  let chosen = cheapest;
  for (const point of priced) {
    const withinTolerance = point.costPicoUsd * 10_000n <= limit;
    if (withinTolerance && point.costPicoUsd < recordedPicoUsd && point.targetTokens > chosen.targetTokens)
      chosen = point;
  }
  const saving = recordedPicoUsd - chosen.costPicoUsd;
  const savingPct = recordedPicoUsd === 0n ? 0 : pctOf(saving, recordedPicoUsd);
  const tolerance = `${toleranceBasisPoints / 100}%`;
  const noun = knobNoun(curve.knob);
  const edge =
    cheapest.targetTokens === priced[0]?.targetTokens ? ` (the smallest ${noun} swept: the minimum may lie lower)` : '';
  const why =
    chosen === cheapest
      ? `the cheapest ${noun} on the curve${edge}`
      : `the largest ${noun} within ${tolerance} of the cheapest (${formatKnobValue(curve.knob, cheapest.targetTokens)}, ${formatUsd(cheapest.costPicoUsd)}${edge})`;
  const knee =
    curve.knee === null
      ? 'the curve has no knee'
      : `the curve's knee is at ${formatKnobValue(curve.knob, curve.knee.targetTokens)}`;
  return {
    kind: 'target',
    series: curve.series,
    knob: curve.knob,
    point: chosen,
    cheapest,
    savingVsRecordedPicoUsd: saving,
    savingVsRecordedPct: savingPct,
    knee: curve.knee,
    reason:
      `${setting(curve.series, curve.knob, chosen.targetTokens)}, ${why}: it costs ${formatUsd(chosen.costPicoUsd)}, ${formatUsd(saving)} (${savingPct.toFixed(1)}%) less than recorded, ` +
      `with ${perSession(chosen.compactions, chosen.sessions)} compactions per session summarizing ${formatTokens(chosen.summarizedAwayTokens)} tokens away; ${knee}.`,
  };
}

/** The best of several curves' recommendations: the cheapest recommended target (ties: the first curve). */
export function bestRecommendation(recommendations: readonly Recommendation[]): Recommendation {
  let best: Recommendation | null = null;
  for (const candidate of recommendations) {
    if (candidate.kind !== 'target') continue;
    if (best === null || best.kind !== 'target' || candidate.point.costPicoUsd < best.point.costPicoUsd)
      best = candidate;
  }
  if (best !== null) return best;
  const unpriced = recommendations.find((r) => r.kind === 'unpriced');
  if (unpriced !== undefined) return unpriced;
  const keep = recommendations.find((r) => r.kind === 'keep-recorded');
  if (keep !== undefined) return keep;
  return (
    recommendations[0] ?? {
      kind: 'no-curve',
      reason: 'no target was swept: add --scenario freecode and a --target grid',
    }
  );
}
