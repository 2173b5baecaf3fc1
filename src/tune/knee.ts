/**
 * The knee of a cost curve (cost against compaction target), by the maximum-distance-to-chord
 * form of Kneedle (Satopää et al., "Finding a 'Kneedle' in a Haystack", ICDCSW 2011):
 *
 * 1. sort the points by target and scale both axes to [0, 1] (target by its range, cost by its
 *    range), so the answer does not depend on units or on how many dollars are at stake;
 * 2. draw the chord from the first point to the last;
 * 3. the knee is the interior point farthest from the chord (ties: the smaller target).
 *
 * In scaled coordinates every point's distance to the chord is its vertical gap times the same
 * constant, so the vertical gap is what is compared. A point below the chord is where a convex
 * curve bends (on a cost-vs-target curve: the bottom of the valley between the compaction costs
 * of small targets and the growing cache reads of large ones); above the chord, where a concave
 * one flattens. Fewer than three points, or a flat curve, have no knee.
 */

export type CurvePoint = {
  readonly targetTokens: number;
  /** Cost as a number (pico-dollars converted); only its shape matters here. */
  readonly cost: number;
};

export type Knee = {
  readonly targetTokens: number;
  /** Index into the points as given. */
  readonly index: number;
  /** 'below': the curve bends up after it (convex); 'above': it flattens after it (concave). */
  readonly side: 'below' | 'above';
  /** Distance to the chord in scaled units (0…1): how pronounced the knee is. */
  readonly distance: number;
};

/** Distances below this (scaled units) are rounding noise of a straight line, not a bend. */
const NO_BEND = 1e-9;

/** The knee of the curve, or null when it has fewer than three distinct targets or no bend. */
export function findKnee(points: readonly CurvePoint[]): Knee | null {
  const order = points
    .map((point, index) => ({ point, index }))
    .sort((a, b) => a.point.targetTokens - b.point.targetTokens || a.index - b.index);
  const first = order[0];
  const last = order[order.length - 1];
  if (first === undefined || last === undefined || order.length < 3) return null;
  const xSpan = last.point.targetTokens - first.point.targetTokens;
  let minCost = Number.POSITIVE_INFINITY;
  let maxCost = Number.NEGATIVE_INFINITY;
  for (const { point } of order) {
    minCost = Math.min(minCost, point.cost);
    maxCost = Math.max(maxCost, point.cost);
  }
  const ySpan = maxCost - minCost;
  if (!(xSpan > 0) || !(ySpan > 0)) return null;
  const y0 = (first.point.cost - minCost) / ySpan;
  const y1 = (last.point.cost - minCost) / ySpan;
  let best: Knee | null = null;
  for (const { point, index } of order.slice(1, -1)) {
    const x = (point.targetTokens - first.point.targetTokens) / xSpan;
    const y = (point.cost - minCost) / ySpan;
    const gap = y0 + (y1 - y0) * x - y;
    // Perpendicular distance = |gap| / sqrt(1 + slope²): the same factor for every point.
    const distance = Math.abs(gap) / Math.hypot(1, y1 - y0);
    if (distance > NO_BEND && (best === null || distance > best.distance)) {
      best = { targetTokens: point.targetTokens, index, side: gap > 0 ? 'below' : 'above', distance };
    }
  }
  return best;
}
