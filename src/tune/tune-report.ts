/**
 * The tune report (replay.md §10): per model and over all sessions, every scenario's cost and
 * saving against `recorded`, what it gives up (compactions per session, tokens summarized away,
 * requests sent right after a compaction), one cost curve per series of targets with its knee,
 * and the recommended target. Sessions are grouped by their main model: a target is a setting a
 * user runs per model, and a session's requests on other models (rare) stay in its group, priced
 * at their own prices. Money stays exact (bigint pico-dollars); renderers convert at the edge.
 */
import type { IngestIssue } from '../session/model.js';
import type { Fidelity } from '../simulate/fidelity.js';
import type { Scenario } from '../simulate/scenario.js';
import { curvePosition, seriesKey, seriesLabel } from './grid.js';
import type { CurveKnob } from '../simulate/scenario.js';
import type { Knee } from './knee.js';
import { findKnee } from './knee.js';
import type { CurveInput, Recommendation } from './recommend.js';
import { bestRecommendation, recommendOnCurve } from './recommend.js';
import type { ScenarioTotals } from './scenario-totals.js';
import { EMPTY_TOTALS, addTotals, costPicoUsdOrNull } from './scenario-totals.js';
import type { SessionSweep } from './sweep-session.js';

/** The first-order counterfactual, stated in every report (replay.md §4). */
export const TUNE_ASSUMPTION =
  'First-order counterfactual: the agent is assumed to produce the same items in the same order under every policy; only the context each request carries changes. Output tokens are the recorded ones.';

export const KNEE_METHOD =
  'Kneedle, maximum distance to the chord: both axes scaled to [0, 1], the knee is the target farthest from the straight line between the smallest and the largest target (Satopää et al. 2011).';

export function recommendationMethod(tolerancePct: number): string {
  return `Among targets cheaper than recorded, the largest whose cost is within ${tolerancePct}% of the curve's cheapest point (more context kept for nearly the same dollars); the cheapest curve's choice when several series are swept.`;
}

export type TunePoint = {
  readonly scenario: Scenario;
  /** The series label when the scenario is a point of a target curve. */
  readonly series: string | null;
  readonly totals: ScenarioTotals;
  /** null when nothing billed could be priced; partial when `totals.unpricedRequests > 0`. */
  readonly costPicoUsd: bigint | null;
  readonly savingVsRecordedPicoUsd: bigint | null;
  readonly savingVsRecordedPct: number | null;
};

export type TuneCurve = {
  readonly series: string;
  readonly family: Scenario['family'];
  /** What the curve runs along: the compaction target, observation masking's M, or clear-tool-uses' trigger. */
  readonly knob: CurveKnob;
  /** Names of the curve's scenarios in ascending knob value. */
  readonly scenarios: readonly string[];
  /** The knob's values (named for the target, the first knob; M or the trigger on the other curves). */
  readonly targetTokens: readonly number[];
  readonly knee: (Knee & { readonly scenario: string }) | null;
  readonly recommendation: Recommendation;
};

/** How far each session's `recorded` replay is from its measured usage (replay.md §6). */
export type SessionFidelity = {
  readonly sessionId: string;
  readonly recordedPolicy: string;
  readonly fidelity: Fidelity;
};

export type TuneGroup = {
  /** The main model of the group's sessions; null for the group of all sessions. */
  readonly model: string | null;
  readonly sessionIds: readonly string[];
  readonly fidelity: readonly SessionFidelity[];
  /** The log's measured usage priced: the bill. */
  readonly bill: ScenarioTotals;
  /** One point per scenario, in the sweep's order (`recorded` first). */
  readonly points: readonly TunePoint[];
  readonly curves: readonly TuneCurve[];
  readonly recommendation: Recommendation;
};

export type TuneReport = {
  readonly assumption: string;
  readonly method: { readonly knee: string; readonly recommendation: string; readonly tolerancePct: number };
  readonly scenarios: readonly Scenario[];
  /** One group per main model, by model name. */
  readonly models: readonly TuneGroup[];
  /** All sessions together. */
  readonly overall: TuneGroup;
  readonly skipped: ReadonlyArray<{ readonly sessionId: string; readonly reason: string }>;
  readonly issues: readonly IngestIssue[];
};

export type TuneReportInput = {
  readonly scenarios: readonly Scenario[];
  /** Session results in a fixed order (discovery order), whatever worker produced them. */
  readonly sweeps: readonly SessionSweep[];
  readonly issues: readonly IngestIssue[];
  readonly tolerancePct: number;
};

type Swept = Extract<SessionSweep, { kind: 'swept' }>;

function pctOf(part: bigint, whole: bigint): number | null {
  if (whole === 0n) return null;
  return Number((part * 100_000_000n) / whole) / 1_000_000;
}

function buildGroup(
  model: string | null,
  sweeps: readonly Swept[],
  scenarios: readonly Scenario[],
  toleranceBasisPoints: number,
): TuneGroup {
  const totals: ScenarioTotals[] = scenarios.map((_, index) =>
    sweeps.reduce((sum, sweep) => addTotals(sum, sweep.results[index] ?? EMPTY_TOTALS), EMPTY_TOTALS),
  );
  const bill = sweeps.reduce((sum, sweep) => addTotals(sum, sweep.bill), EMPTY_TOTALS);
  const recordedTotals = totals[0] ?? EMPTY_TOTALS;
  const recordedCost = recordedTotals.unpricedRequests > 0 ? null : costPicoUsdOrNull(recordedTotals);
  const points: TunePoint[] = scenarios.map((scenario, index) => {
    const t = totals[index] ?? EMPTY_TOTALS;
    const cost = costPicoUsdOrNull(t);
    const comparable = cost !== null && recordedCost !== null && t.unpricedRequests === 0;
    return {
      scenario,
      series: curvePosition(scenario) !== null ? seriesLabel(scenario) : null,
      totals: t,
      costPicoUsd: cost,
      savingVsRecordedPicoUsd: comparable ? recordedCost - cost : null,
      savingVsRecordedPct: comparable ? pctOf(recordedCost - cost, recordedCost) : null,
    };
  });
  const bySeries = new Map<string, TunePoint[]>();
  for (const point of points) {
    if (point.series === null) continue;
    const key = seriesKey(point.scenario);
    const list = bySeries.get(key);
    if (list === undefined) bySeries.set(key, [point]);
    else list.push(point);
  }
  const curves: TuneCurve[] = [];
  for (const list of bySeries.values()) {
    const at = (p: TunePoint): number => curvePosition(p.scenario)?.value ?? 0;
    const sorted = [...list].sort((a, b) => at(a) - at(b));
    const series = sorted[0]?.series ?? '';
    const knob = (sorted[0] === undefined ? null : curvePosition(sorted[0].scenario)?.knob) ?? 'target';
    const allPriced = sorted.every((p) => p.costPicoUsd !== null && p.totals.unpricedRequests === 0);
    const knee = allPriced
      ? findKnee(sorted.map((p) => ({ targetTokens: at(p), cost: Number(p.costPicoUsd ?? 0n) })))
      : null;
    const curve: CurveInput = {
      series,
      knob,
      knee,
      points: sorted.map((p) => ({
        scenario: p.scenario.name,
        targetTokens: at(p),
        costPicoUsd: p.costPicoUsd,
        unpricedRequests: p.totals.unpricedRequests,
        compactions: p.totals.compactions,
        sessions: p.totals.sessions,
        summarizedAwayTokens: p.totals.summarizedAwayTokens,
      })),
    };
    const kneePoint = knee === null ? undefined : sorted[knee.index];
    curves.push({
      series,
      family: sorted[0]?.scenario.family ?? 'freecode',
      knob,
      scenarios: sorted.map((p) => p.scenario.name),
      targetTokens: sorted.map(at),
      knee: knee === null || kneePoint === undefined ? null : { ...knee, scenario: kneePoint.scenario.name },
      recommendation: recommendOnCurve(
        curve,
        { costPicoUsd: recordedCost, unpricedRequests: recordedTotals.unpricedRequests },
        toleranceBasisPoints,
      ),
    });
  }
  return {
    model,
    sessionIds: sweeps.map((sweep) => sweep.sessionId),
    fidelity: sweeps.map((sweep) => ({
      sessionId: sweep.sessionId,
      recordedPolicy: sweep.recordedPolicy,
      fidelity: sweep.fidelity,
    })),
    bill,
    points,
    curves,
    recommendation: bestRecommendation(curves.map((curve) => curve.recommendation)),
  };
}

/** Tolerance in percent as integer basis points (2 → 200), the unit the exact comparison uses. */
export function toleranceBasisPoints(tolerancePct: number): number {
  return Math.round(tolerancePct * 100);
}

/**
 * Assembles the report from the sessions' sweeps. The output depends only on the inputs and
 * their order: sums are exact integers, groups are sorted by model name.
 */
export function buildTuneReport(input: TuneReportInput): TuneReport {
  const swept = input.sweeps.filter((sweep): sweep is Swept => sweep.kind === 'swept');
  const models = [...new Set(swept.map((sweep) => sweep.model))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const bp = toleranceBasisPoints(input.tolerancePct);
  return {
    assumption: TUNE_ASSUMPTION,
    method: {
      knee: KNEE_METHOD,
      recommendation: recommendationMethod(input.tolerancePct),
      tolerancePct: input.tolerancePct,
    },
    scenarios: input.scenarios,
    models: models.map((model) =>
      buildGroup(
        model,
        swept.filter((sweep) => sweep.model === model),
        input.scenarios,
        bp,
      ),
    ),
    overall: buildGroup(null, swept, input.scenarios, bp),
    skipped: input.sweeps.flatMap((sweep) =>
      sweep.kind === 'skipped' ? [{ sessionId: sweep.sessionId, reason: sweep.reason }] : [],
    ),
    issues: input.issues,
  };
}
