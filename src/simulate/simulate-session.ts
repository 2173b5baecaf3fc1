/**
 * One session through every scenario (replay.md §3–§6): choose and calibrate the recorded
 * policy against the measured usage, then replay each scenario with the same token sizes so that
 * scenario differences are differences of policy, not of modelling.
 */
import type { Session } from '../session/model.js';
import type { CalibrationPoint, TokenCalibration } from './calibrate.js';
import { calibrateSession, calibrateTokens, calibrationForModel } from './calibrate.js';
import type { Fidelity, FidelityRow } from './fidelity.js';
import { isModelledRequest, measureFidelity } from './fidelity.js';
import { recordedPolicyCandidates } from './recorded-policy.js';
import type { ModelFacts, RecordedPolicy, ReplayInput, ReplayResult } from './replay.js';
import { isUnsizedWalk, replaySession } from './replay.js';
import type { TracePricing, TracedSend } from './recorded-trace.js';
import { priceRecordedTrace, traceRecordedReplay, tracedSends } from './recorded-trace.js';
import { repriceAutomaticCache, ttlChoiceOf } from './row-emitter.js';
import { ReplayMemo, TOOL_LINE_MEMO_MAX_CHARS, sessionContentChars } from './replay-memo.js';
import { replayResult } from './replay-types.js';
import type { Scenario } from './scenario.js';
import { familyDefaults } from './scenario.js';

export type SessionSimulation = {
  readonly session: Session;
  /** The model of most requests (ties: the first seen). */
  readonly model: string;
  readonly calibration: TokenCalibration;
  readonly recordedPolicy: RecordedPolicy;
  readonly fidelity: Fidelity;
  /** Tokens of the static block cached when the session began (see `warmStaticTokens`); every replay of it must say so. */
  readonly warmStaticTokens: number;
  /** The session's own transient miss share when its log measured it (`measuredTransientMissRate`); every replay of it uses it. */
  readonly transientMissRate: number | undefined;
  /** The automatic cache's lifetime when the session's log fits the provider's documented one better. */
  readonly automaticTtlMs: number | undefined;
  /** Whether the log's reads show FreeCode's reload break at each new user message (`ReplayInput.reloadBreaks`). */
  readonly reloadBreaks: boolean;
  /** One result per scenario, in the order given. */
  readonly results: ReadonlyArray<{ readonly scenario: Scenario; readonly result: ReplayResult }>;
  /**
   * The replays' shared work (`ReplayMemo`), kept only where a later replay of the session needs
   * it: the flags replay the default scenario with a blocking PreCompact hook allowing
   * (`preCompactHookBlocks`). Elsewhere absent, so that it is let go with the replays.
   */
  readonly memo?: ReplayMemo;
};

export type SimulateOptions = {
  readonly modelFacts: (model: string) => ModelFacts;
  /**
   * The session's replay memo, for a caller that replays the session again afterwards (a sweep's
   * scenarios: `sweepSession`); absent = one made here for these replays alone.
   */
  readonly memo?: ReplayMemo;
};

/**
 * A memo for the replays of one session (`ReplayMemo`): its tool lines kept unless the session is
 * very large; `keepSummaries` for a sweep's many replays.
 */
export function sessionReplayMemo(session: Session, options: { readonly keepSummaries?: boolean } = {}): ReplayMemo {
  return new ReplayMemo({
    keepToolLines: sessionContentChars(session) <= TOOL_LINE_MEMO_MAX_CHARS,
    ...(options.keepSummaries === true ? { keepSummaries: true } : {}),
  });
}

/** Whether a session can be replayed: it needs requests (SWE-agent totals are not, replay.md §2). */
export function isReplayable(session: Session): boolean {
  return session.totalsOnly === null && session.requests.length > 0;
}

/** The session's main model. */
export function primaryModel(session: Session): string {
  const counts = new Map<string, number>();
  for (const request of session.requests) counts.set(request.model, (counts.get(request.model) ?? 0) + 1);
  let best = session.requests[0]?.model ?? 'unknown';
  let bestCount = 0;
  for (const [model, count] of counts) {
    if (count > bestCount) {
      best = model;
      bestCount = count;
    }
  }
  return best;
}

/**
 * A PreCompact hook is modelled as blocking when the log shows it blocking and never shows a
 * threshold compaction (the `blocked-hook-storm` shape); otherwise no hook is modelled.
 */
export function preCompactHookBlocks(session: Session): boolean {
  const blocked = session.events.some((event) => event.kind === 'hook_block' && event.hookName === 'PreCompact');
  const compacted = session.events.some((event) => event.kind === 'compaction' && event.trigger !== 'overflow');
  return blocked && !compacted;
}

/**
 * How much of the static block was already cached when the session began (a system prompt shared
 * with earlier sessions of the same agent): what its first main-agent request read from the
 * cache, at most the whole block, 0 when it read nothing. An environment fact
 * read from the log, like the static block's size.
 */
export function warmStaticTokens(session: Session, calibration: TokenCalibration): number {
  const first = session.requests.find((request) => request.agentId === null);
  const read = first?.usage?.cacheReadTokens ?? 0;
  const staticBlock = first === undefined ? calibration : calibrationForModel(calibration, first.model);
  return Math.max(0, Math.min(read, staticBlock.staticBlockTokens));
}

/** Replays a session under every scenario; the `recorded` one is calibrated first. */
export function simulateSession(
  session: Session,
  scenarios: readonly Scenario[],
  options: SimulateOptions,
): SessionSimulation {
  const recordedScenario = scenarios.find((scenario) => scenario.family === 'recorded') ?? {
    name: 'recorded',
    family: 'recorded' as const,
    params: familyDefaults('recorded'),
  };
  const hookBlocks = preCompactHookBlocks(session);
  // Every replay of the session turns the same items into the same messages: built once.
  const memo = options.memo ?? sessionReplayMemo(session);
  const fit = fitRecorded(session, recordedScenario, options, hookBlocks, memo);
  const results = scenarios.map((scenario) => ({
    scenario,
    result:
      scenario === recordedScenario
        ? fit.result
        : replaySession({
            session,
            scenario,
            calibration: fit.calibration,
            recordedPolicy: fit.policy,
            modelFacts: options.modelFacts,
            preCompactHookBlocks: hookBlocks,
            warmStaticTokens: fit.warmStaticTokens,
            ...automaticCacheFacts(fit),
            memo,
          }),
  }));
  return {
    session,
    model: primaryModel(session),
    calibration: fit.calibration,
    recordedPolicy: fit.policy,
    fidelity: fit.fidelity,
    warmStaticTokens: fit.warmStaticTokens,
    transientMissRate: fit.transientMissRate,
    automaticTtlMs: fit.automaticTtlMs,
    reloadBreaks: fit.reloadBreaks,
    results,
    ...(hookBlocks ? { memo } : {}),
  };
}

/**
 * The first request after each recorded compaction whose summary restarts the log's chain (a root
 * of its tree, formats.md §1.6–§1.7), in log order: the stretches the calibration gives a hidden
 * re-attached block of their own. The replay restarts the context at the same events.
 */
export function chainRestartRequests(session: Session): number[] {
  const rootSummaries = new Set<string>();
  for (const item of session.items) if (item.kind === 'summary' && item.parentId === null) rootSummaries.add(item.id);
  if (rootSummaries.size === 0) return [];
  const at: number[] = [];
  for (const event of session.events) {
    if (event.kind === 'compaction' && event.summaryItemId !== null && rootSummaries.has(event.summaryItemId))
      at.push(event.requestIndex);
  }
  return at;
}

/** A median per-request prompt error below this is a fit no other policy needs to beat. */
export const GOOD_FIT_MEDIAN_ERROR_PCT = 0.5;

type RecordedFit = {
  readonly policy: RecordedPolicy;
  readonly calibration: TokenCalibration;
  readonly result: ReplayResult;
  readonly fidelity: Fidelity;
  readonly warmStaticTokens: number;
  readonly transientMissRate: number | undefined;
  readonly automaticTtlMs: number | undefined;
  readonly reloadBreaks: boolean;
};

/**
 * The `recorded` replay under one recorded policy, priced under any calibration and cache facts.
 * Where no decision of the walk reads a size (`isUnsizedWalk`) the walk is made once and each
 * pricing sizes its sends (`recorded-trace.ts`: the same rows as a walk each time); otherwise
 * (a recorded scenario with tool-result editing) each pricing walks again.
 */
type RecordedReplays = {
  readonly price: (pricing: TracePricing) => ReplayResult;
  /** The calibration inputs of the sends under a calibration (`tracedSends`). */
  readonly sends: (calibration: TokenCalibration) => readonly TracedSend[];
  /**
   * A candidate's prompts under its calibration, for comparing candidates: sized only where the
   * walk is traced; where each pricing walks again, the priced result too (kept for the winner).
   */
  readonly prompts: (pricing: TracePricing) => {
    readonly rows: readonly FidelityRow[];
    readonly result?: ReplayResult;
  };
};

function recordedReplays(
  session: Session,
  scenario: Scenario,
  policy: RecordedPolicy,
  options: SimulateOptions,
  hookBlocks: boolean,
  memo: ReplayMemo,
): RecordedReplays {
  const input: ReplayInput = {
    session,
    scenario,
    calibration: calibrateTokens([]),
    recordedPolicy: policy,
    modelFacts: options.modelFacts,
    preCompactHookBlocks: hookBlocks,
    memo,
  };
  if (!isUnsizedWalk(scenario)) {
    const price = (pricing: TracePricing) => replaySession({ ...input, ...pricing });
    return {
      price,
      sends: (calibration) =>
        price({ calibration, warmStaticTokens: 0 }).rows.filter(
          (row) => row.kind === 'request' && row.sourceRequestIndex !== null,
        ),
      prompts: (pricing) => pricedPrompts(price(pricing)),
    };
  }
  // FreeCode's reload copies only where the fit can ask for the reload break (`withReloadBreaks`).
  const trace = traceRecordedReplay(input, memo, reloadBreakApplies(session, policy));
  return {
    price: (pricing) => priceRecordedTrace(trace, pricing, memo),
    sends: (calibration) => tracedSends(trace, calibration, memo),
    // Renders kept: the chosen candidate's calibration is priced next with them.
    prompts: (pricing) => ({ rows: promptRows(tracedSends(trace, pricing.calibration, memo, true)) }),
  };
}

/** Whether `withReloadBreaks` may try FreeCode's reload break on a session under a recorded policy. */
function reloadBreakApplies(session: Session, policy: RecordedPolicy): boolean {
  return session.source === 'freecode' && policy.version === 'newest';
}

/**
 * Each candidate policy is replayed once to learn what was visible at every measured request,
 * calibrated on it, and priced again under the calibration; the candidate whose prompts match
 * best wins (the first, i.e. the date's choice, on a tie or without measurements).
 */
function fitRecorded(
  session: Session,
  scenario: Scenario,
  options: SimulateOptions,
  hookBlocks: boolean,
  memo: ReplayMemo,
): RecordedFit {
  // Candidates are compared by their prompts alone (`score`), which the cache never changes: each
  // is sized under its calibration (`sends`), and only the chosen one is priced through the cache.
  type Candidate = {
    readonly policy: RecordedPolicy;
    readonly calibration: TokenCalibration;
    readonly warmStaticTokens: number;
    readonly promptFidelity: Fidelity;
    readonly replays: RecordedReplays;
    readonly result: ReplayResult | undefined;
  };
  let best: Candidate | null = null;
  // Where the automatic cache's facts are measured, the fit's pricings keep their prompts: the
  // facts reprice the chosen one (`withAutomaticCacheFacts`) instead of pricing its sends again.
  const keepPrompts = measuresAutomaticCache(session, options);
  const policies = recordedPolicyCandidates(session);
  for (const [index, policy] of policies.entries()) {
    const replays = recordedReplays(session, scenario, policy, options, hookBlocks, memo);
    const calibration = calibrateSession(calibrationPoints(session, replays.sends(calibrateTokens([]))));
    const warmStatic = warmStaticTokens(session, calibration);
    // A lone candidate is chosen whatever its prompts: priced at once.
    const prompts =
      best === null && index === policies.length - 1
        ? pricedPrompts(replays.price({ calibration, warmStaticTokens: warmStatic, keepPrompts }))
        : replays.prompts({ calibration, warmStaticTokens: warmStatic, keepPrompts });
    const promptFidelity = measureFidelity(session, prompts.rows);
    const candidate: Candidate = {
      policy,
      calibration,
      warmStaticTokens: warmStatic,
      promptFidelity,
      replays,
      result: prompts.result,
    };
    if (best === null || score(candidate.promptFidelity) < score(best.promptFidelity)) best = candidate;
    // The date's candidate comes first; when it already reproduces the measured prompts the
    // others cannot do meaningfully better, and each costs two more replays.
    if (
      promptFidelity.measuredRequests === 0 ||
      (promptFidelity.medianRequestErrorPct ?? Number.POSITIVE_INFINITY) < GOOD_FIT_MEDIAN_ERROR_PCT
    )
      break;
  }
  if (best === null) throw new Error('invariant: at least one recorded policy candidate');
  const replays = best.replays;
  const priced =
    best.result ??
    replays.price({ calibration: best.calibration, warmStaticTokens: best.warmStaticTokens, keepPrompts });
  const chosen: RecordedFit = {
    policy: best.policy,
    calibration: best.calibration,
    result: withoutKeptPrompts(priced),
    fidelity: measureFidelity(session, priced.rows),
    warmStaticTokens: best.warmStaticTokens,
    transientMissRate: undefined,
    automaticTtlMs: undefined,
    reloadBreaks: false,
  };
  let pricedWithBreaks: ReplayResult | undefined;
  const fit = withReloadBreaks(session, chosen, () => {
    pricedWithBreaks = replays.price({
      calibration: best.calibration,
      warmStaticTokens: best.warmStaticTokens,
      reloadBreaks: true,
      keepPrompts,
    });
    return withoutKeptPrompts(pricedWithBreaks);
  });
  // The automatic cache's facts change only how the rows are priced, never the walk: the fit's
  // own pricing (with the reload break where it was kept) is repriced under each, exactly a fresh
  // replay's rows (`repriceAutomaticCache` replaces the miss share it was priced with).
  if (!keepPrompts) return fit;
  const kept = fit.reloadBreaks ? pricedWithBreaks : priced;
  return withAutomaticCacheFacts(session, fit, options, (rate, ttlMs) => {
    if (kept?.pricedPrompts === undefined) throw new Error('invariant: the fit kept the prompts it reprices');
    return repriceAutomaticCache(
      kept,
      { transientMissRate: rate, automaticTtlMs: ttlMs },
      ttlChoiceOf(scenario),
      fit.warmStaticTokens,
    );
  });
}

/** A result as the fit returns it: without the prompts kept for repricing it (as a replay without `keepPrompts` gives it). */
function withoutKeptPrompts(result: ReplayResult): ReplayResult {
  if (result.pricedPrompts === undefined) return result;
  return replayResult(result.rows, result, undefined);
}

/**
 * The measured main-thread requests of a probe replay as calibration points (what was visible,
 * what the provider counted), from its request rows in order. A function of its own so that the
 * probe's rows are garbage before the calibrated pricing starts.
 */
function calibrationPoints(session: Session, sends: readonly TracedSend[]): CalibrationPoint[] {
  const points: CalibrationPoint[] = [];
  const restarts = chainRestartRequests(session);
  for (const row of sends) {
    if (row.sourceRequestIndex === null) continue;
    const request = session.requests[row.sourceRequestIndex];
    if (request === undefined || request.agentId !== null || request.usage === null) continue;
    const usage = request.usage;
    const restartGroup = restarts.filter((at) => at <= request.index).length;
    points.push({
      promptTokens: usage.promptTokens - row.fixedTokens,
      visibleChars: row.visibleChars,
      visibleSegments: row.visibleUnits,
      ...(restartGroup > 0 ? { restartGroup } : {}),
      model: request.model,
    });
  }
  return points;
}

/**
 * FreeCode's reload break (engine.md §5.6, §13.9) is inferred from its code, not verified, so the
 * log decides: for a FreeCode log replayed with the newest engine, the replay with the break is
 * kept when its cache reads match the measured reads better than the replay without it. Prompt
 * sizes do not change, only what is read.
 */
function withReloadBreaks(session: Session, fit: RecordedFit, replayWithBreaks: () => ReplayResult): RecordedFit {
  if (!reloadBreakApplies(session, fit.policy) || fit.fidelity.measuredRequests === 0) return fit;
  const result = replayWithBreaks();
  if (readError(session, result) >= readError(session, fit.result)) return fit;
  return { ...fit, result, fidelity: measureFidelity(session, result.rows), reloadBreaks: true };
}

/** The replay input fields for what the fit measured of the cache (an automatic cache, FreeCode's reload break). */
export function automaticCacheFacts(fit: {
  readonly transientMissRate: number | undefined;
  readonly automaticTtlMs: number | undefined;
  readonly reloadBreaks?: boolean;
}): { transientMissRate?: number; automaticTtlMs?: number; reloadBreaks?: boolean } {
  return {
    ...(fit.transientMissRate === undefined ? {} : { transientMissRate: fit.transientMissRate }),
    ...(fit.automaticTtlMs === undefined ? {} : { automaticTtlMs: fit.automaticTtlMs }),
    ...(fit.reloadBreaks === true ? { reloadBreaks: true } : {}),
  };
}

/** Requests reading beyond the static block a session needs before its own miss share replaces the provider's. */
export const MIN_MISS_EVIDENCE_REQUESTS = 20;

/**
 * An automatic cache's transient misses (`CacheRules.transientMissRate`) are an environment fact
 * like a warm start: when the log has enough requests that read beyond the static block, the
 * share it measured (replayed without misses, then compared with the measured reads) replaces the
 * provider's rate; with too few, the provider's rate stands. Only for a session that has such a
 * cache (`measuresAutomaticCache`); breakpoint caches: no change.
 */
function withAutomaticCacheFacts(
  session: Session,
  fit: RecordedFit,
  options: SimulateOptions,
  replay: (rate: number, ttlMs: number | undefined) => ReplayResult,
): RecordedFit {
  const rules = session.requests.map((request) => options.modelFacts(request.model).rules);
  // The lifetime first, without misses: the provider's documented one when it fits the measured reads better.
  const documented = rules.find((r) => r.documentedTtlMs !== null)?.documentedTtlMs ?? null;
  const observed = replay(0, undefined);
  let ttlMs: number | undefined;
  let withoutMisses = observed;
  if (documented !== null) {
    const short = replay(0, documented);
    if (readError(session, short) < readError(session, observed)) {
      ttlMs = documented;
      withoutMisses = short;
    }
  }
  const rate = measuredTransientMissRate(session, withoutMisses, fit.warmStaticTokens, options);
  if (rate === null && ttlMs === undefined) return fit;
  const result =
    rate === null
      ? replay(rules.find((r) => r.transientMissRate > 0)?.transientMissRate ?? 0, ttlMs)
      : replay(rate, ttlMs);
  return {
    ...fit,
    result,
    fidelity: measureFidelity(session, result.rows),
    transientMissRate: rate ?? undefined,
    automaticTtlMs: ttlMs,
  };
}

/** Whether `withAutomaticCacheFacts` measures the session's cache: a request's model has an automatic cache with transient misses. */
function measuresAutomaticCache(session: Session, options: SimulateOptions): boolean {
  return session.requests.some((request) => {
    const rules = options.modelFacts(request.model).rules;
    return rules.kind === 'automatic-prefix' && rules.transientMissRate > 0;
  });
}

/** Σ |replayed − measured| cache reads over the modelled requests. */
function readError(session: Session, result: ReplayResult): number {
  let error = 0;
  for (const row of result.rows) {
    if (row.kind !== 'request' || row.sourceRequestIndex === null) continue;
    const request = session.requests[row.sourceRequestIndex];
    if (request === undefined || request.usage === null || !isModelledRequest(request)) continue;
    error += Math.abs(row.cacheReadTokens - request.usage.cacheReadTokens);
  }
  return error;
}

/** 1 − Σ measured / Σ replayed reads beyond the shared static block, over the modelled requests; null without enough evidence. */
export function measuredTransientMissRate(
  session: Session,
  withoutMisses: ReplayResult,
  warmStaticTokens: number,
  options: SimulateOptions,
): number | null {
  let replayed = 0;
  let measured = 0;
  let requests = 0;
  for (const row of withoutMisses.rows) {
    if (row.kind !== 'request' || row.sourceRequestIndex === null) continue;
    const request = session.requests[row.sourceRequestIndex];
    if (request === undefined || request.usage === null || !isModelledRequest(request)) continue;
    const rules = options.modelFacts(request.model).rules;
    const floor = Math.floor(warmStaticTokens / rules.granularityTokens) * rules.granularityTokens;
    if (row.cacheReadTokens <= floor) continue;
    requests += 1;
    replayed += row.cacheReadTokens - floor;
    measured += Math.min(Math.max(0, request.usage.cacheReadTokens - floor), row.cacheReadTokens - floor);
  }
  if (requests < MIN_MISS_EVIDENCE_REQUESTS || replayed === 0) return null;
  return 1 - measured / replayed;
}

function pricedPrompts(result: ReplayResult): { readonly rows: readonly FidelityRow[]; readonly result: ReplayResult } {
  return { rows: result.rows, result };
}

/** A traced send's prompt as the fidelity reads it (its cache read is not compared here: `score` reads prompts only). */
function promptRows(sends: readonly TracedSend[]): FidelityRow[] {
  return sends.map((send) => ({
    kind: 'request',
    sourceRequestIndex: send.sourceRequestIndex,
    promptTokens: send.promptTokens,
    cacheReadTokens: 0,
  }));
}

/** Lower is better: the median per-request error, then the total error (of the prompts alone). */
function score(fidelity: Fidelity): number {
  if (fidelity.medianRequestErrorPct === null) return Number.POSITIVE_INFINITY;
  return fidelity.medianRequestErrorPct * 1_000 + Math.abs(fidelity.promptTokensErrorPct ?? 0);
}
