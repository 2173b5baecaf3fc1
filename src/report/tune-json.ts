/**
 * The tune report as JSON: the same content as the table and the CSV, with money as exact
 * decimal USD strings (as in every command's JSON) and every token count exact. Key order is fixed, so the
 * same report always serializes to the same bytes.
 */
import { formatPicoUsd } from '../cost/money.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import type { Recommendation, RecommendationPoint } from '../tune/recommend.js';
import { costPicoUsdOrNull } from '../tune/scenario-totals.js';
import type { TuneCurve, TuneGroup, TunePoint, TuneReport } from '../tune/tune-report.js';

/** Exact decimal USD; null = unpriced. */
type Usd = string | null;

export type TuneResultJson = {
  readonly scenario: string;
  readonly family: string;
  readonly series: string | null;
  readonly targetTokens: number | null;
  readonly bufferTokens: number;
  readonly preserveRecentTurns: number;
  readonly ttl: string;
  readonly costUsd: Usd;
  /** Parts of the cost; they add up to `costUsd`. */
  readonly costBreakdownUsd: {
    readonly cacheRead: string;
    readonly cacheWrite: string;
    readonly uncachedInput: string;
    readonly output: string;
    readonly summarizer: string;
  };
  readonly savingVsRecordedUsd: Usd;
  readonly savingVsRecordedPct: number | null;
  readonly compactions: number;
  readonly compactionsPerSession: number;
  readonly blockedCompactions: number;
  readonly summarizedAwayTokens: number;
  readonly requestsAfterCompaction: number;
  readonly requests: number;
  readonly summarizeRequests: number;
  readonly rejectedOverflows: number;
  readonly failedTurns: number;
  readonly peakContextTokens: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
  readonly unpricedRequests: number;
};

type PointJson = { readonly scenario: string; readonly targetTokens: number; readonly costUsd: string };

export type RecommendationJson =
  | {
      readonly kind: 'target';
      readonly series: string;
      /** What `targetTokens` is a value of: the compaction target, M (`keep-results`) or the trigger (`clear-trigger`). */
      readonly knob: string;
      readonly scenario: string;
      readonly targetTokens: number;
      readonly costUsd: string;
      readonly savingVsRecordedUsd: string;
      readonly savingVsRecordedPct: number;
      readonly cheapest: PointJson;
      readonly kneeTargetTokens: number | null;
      readonly reason: string;
    }
  | { readonly kind: 'keep-recorded'; readonly series: string; readonly cheapest: PointJson; readonly reason: string }
  | { readonly kind: 'unpriced'; readonly series: string | null; readonly reason: string }
  | { readonly kind: 'no-curve'; readonly reason: string };

export type TuneCurveJson = {
  readonly series: string;
  readonly family: string;
  /** What `targetTokens` holds: the compaction target, M (`keep-results`) or the trigger (`clear-trigger`). */
  readonly knob: string;
  readonly targetTokens: readonly number[];
  readonly knee: {
    readonly scenario: string;
    readonly targetTokens: number;
    readonly side: 'below' | 'above';
    readonly distance: number;
  } | null;
  readonly recommendation: RecommendationJson;
};

export type TuneGroupJson = {
  readonly model: string | null;
  readonly sessions: number;
  readonly sessionIds: readonly string[];
  /** Per session: the recorded replay against the measured usage (replay.md §6). */
  readonly fidelity: ReadonlyArray<{
    readonly sessionId: string;
    readonly recordedPolicy: string;
    readonly measuredRequests: number;
    readonly promptTokensErrorPct: number | null;
    readonly medianRequestErrorPct: number | null;
  }>;
  readonly bill: { readonly requests: number; readonly costUsd: Usd; readonly unpricedRequests: number };
  readonly results: readonly TuneResultJson[];
  readonly curves: readonly TuneCurveJson[];
  readonly recommendation: RecommendationJson;
};

export type TuneReportJson = {
  readonly assumption: string;
  readonly method: TuneReport['method'];
  readonly scenarios: ReadonlyArray<{
    readonly name: string;
    readonly family: string;
    readonly params: Scenario['params'];
  }>;
  readonly models: readonly TuneGroupJson[];
  readonly overall: TuneGroupJson;
  readonly skipped: TuneReport['skipped'];
  readonly issues: readonly IngestIssue[];
};

function usd(picoUsd: bigint | null): Usd {
  return picoUsd === null ? null : formatPicoUsd(picoUsd);
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function resultJson(point: TunePoint): TuneResultJson {
  const t = point.totals;
  const p = point.scenario.params;
  return {
    scenario: point.scenario.name,
    family: point.scenario.family,
    series: point.series,
    targetTokens: p.targetTokens,
    bufferTokens: p.bufferTokens,
    preserveRecentTurns: p.preserveRecentTurns,
    ttl: p.ttl,
    costUsd: usd(point.costPicoUsd),
    costBreakdownUsd: {
      cacheRead: formatPicoUsd(t.cost.cacheReadPicoUsd),
      cacheWrite: formatPicoUsd(t.cost.cacheWritePicoUsd),
      uncachedInput: formatPicoUsd(t.cost.uncachedInputPicoUsd),
      output: formatPicoUsd(t.cost.outputPicoUsd),
      summarizer: formatPicoUsd(t.cost.summarizerPicoUsd),
    },
    savingVsRecordedUsd: usd(point.savingVsRecordedPicoUsd),
    savingVsRecordedPct: point.savingVsRecordedPct,
    compactions: t.compactions,
    compactionsPerSession: t.sessions === 0 ? 0 : round6(t.compactions / t.sessions),
    blockedCompactions: t.blockedCompactions,
    summarizedAwayTokens: t.summarizedAwayTokens,
    requestsAfterCompaction: t.requestsAfterCompaction,
    requests: t.requests,
    summarizeRequests: t.summarizeRequests,
    rejectedOverflows: t.rejectedOverflows,
    failedTurns: t.failedTurns,
    peakContextTokens: t.peakContextTokens,
    promptTokens: t.promptTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWrite5mTokens + t.cacheWrite1hTokens,
    uncachedInputTokens: t.uncachedInputTokens,
    outputTokens: t.outputTokens,
    unpricedRequests: t.unpricedRequests,
  };
}

function pointJson(point: RecommendationPoint): PointJson {
  return { scenario: point.scenario, targetTokens: point.targetTokens, costUsd: formatPicoUsd(point.costPicoUsd) };
}

/** A recommendation as JSON. */
export function recommendationJson(r: Recommendation): RecommendationJson {
  switch (r.kind) {
    case 'target':
      return {
        kind: 'target',
        series: r.series,
        knob: r.knob,
        scenario: r.point.scenario,
        targetTokens: r.point.targetTokens,
        costUsd: formatPicoUsd(r.point.costPicoUsd),
        savingVsRecordedUsd: formatPicoUsd(r.savingVsRecordedPicoUsd),
        savingVsRecordedPct: r.savingVsRecordedPct,
        cheapest: pointJson(r.cheapest),
        kneeTargetTokens: r.knee?.targetTokens ?? null,
        reason: r.reason,
      };
    case 'keep-recorded':
      return { kind: 'keep-recorded', series: r.series, cheapest: pointJson(r.cheapest), reason: r.reason };
    case 'unpriced':
      return { kind: 'unpriced', series: r.series, reason: r.reason };
    case 'no-curve':
      return { kind: 'no-curve', reason: r.reason };
    default: {
      const unreachable: never = r;
      return unreachable;
    }
  }
}

function curveJson(curve: TuneCurve): TuneCurveJson {
  return {
    series: curve.series,
    family: curve.family,
    knob: curve.knob,
    targetTokens: curve.targetTokens,
    knee:
      curve.knee === null
        ? null
        : {
            scenario: curve.knee.scenario,
            targetTokens: curve.knee.targetTokens,
            side: curve.knee.side,
            distance: round6(curve.knee.distance),
          },
    recommendation: recommendationJson(curve.recommendation),
  };
}

function groupJson(group: TuneGroup): TuneGroupJson {
  const bill = group.bill;
  return {
    model: group.model,
    sessions: group.sessionIds.length,
    sessionIds: group.sessionIds,
    fidelity: group.fidelity.map((f) => ({
      sessionId: f.sessionId,
      recordedPolicy: f.recordedPolicy,
      measuredRequests: f.fidelity.measuredRequests,
      promptTokensErrorPct: f.fidelity.promptTokensErrorPct,
      medianRequestErrorPct: f.fidelity.medianRequestErrorPct,
    })),
    bill: {
      requests: bill.requests,
      costUsd: usd(costPicoUsdOrNull(bill)),
      unpricedRequests: bill.unpricedRequests,
    },
    results: group.points.map(resultJson),
    curves: group.curves.map(curveJson),
    recommendation: recommendationJson(group.recommendation),
  };
}

/** The report as a JSON-ready object (no bigint). */
export function tuneReportJson(report: TuneReport): TuneReportJson {
  return {
    assumption: report.assumption,
    method: report.method,
    scenarios: report.scenarios.map((s) => ({ name: s.name, family: s.family, params: s.params })),
    models: report.models.map(groupJson),
    overall: groupJson(report.overall),
    skipped: report.skipped,
    issues: report.issues,
  };
}
