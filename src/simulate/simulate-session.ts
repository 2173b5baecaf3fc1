/**
 * One session through every scenario (replay.md §3–§6): choose and calibrate the recorded
 * policy against the measured usage, then replay each scenario with the same token sizes so that
 * scenario differences are differences of policy, not of modelling.
 */
import type { Session } from '../session/model.js';
import type { CalibrationPoint, TokenCalibration } from './calibrate.js';
import { calibrateTokens } from './calibrate.js';
import type { Fidelity } from './fidelity.js';
import { measureFidelity } from './fidelity.js';
import { recordedPolicyCandidates } from './recorded-policy.js';
import type { ModelFacts, RecordedPolicy, ReplayResult } from './replay.js';
import { replaySession } from './replay.js';
import type { Scenario } from './scenario.js';
import { familyDefaults } from './scenario.js';

export type SessionSimulation = {
  readonly session: Session;
  /** The model of most requests (ties: the first seen). */
  readonly model: string;
  readonly calibration: TokenCalibration;
  readonly recordedPolicy: RecordedPolicy;
  readonly fidelity: Fidelity;
  /** Whether the session started with its static block cached (see `startsWarm`); every replay of it must say so. */
  readonly warmStaticBlock: boolean;
  /** One result per scenario, in the order given. */
  readonly results: ReadonlyArray<{ readonly scenario: Scenario; readonly result: ReplayResult }>;
};

export type SimulateOptions = {
  readonly modelFacts: (model: string) => ModelFacts;
};

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
 * Whether the session started with its static block already cached (a system prompt shared with
 * an earlier session of the same agent): its first main-agent request read at least most of the
 * static block from the cache.
 */
export function startsWarm(session: Session, calibration: TokenCalibration): boolean {
  const first = session.requests.find((request) => request.agentId === null);
  const read = first?.usage?.cacheReadTokens ?? 0;
  return read > 0 && read >= 0.9 * calibration.staticBlockTokens;
}

/** Replays a session under every scenario; the `recorded` one is calibrated first. */
export function simulateSession(session: Session, scenarios: readonly Scenario[], options: SimulateOptions): SessionSimulation {
  const recordedScenario = scenarios.find((scenario) => scenario.family === 'recorded') ?? {
    name: 'recorded',
    family: 'recorded' as const,
    params: familyDefaults('recorded'),
  };
  const hookBlocks = preCompactHookBlocks(session);
  const fit = fitRecorded(session, recordedScenario, options, hookBlocks);
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
            warmStaticBlock: fit.warmStaticBlock,
          }),
  }));
  return {
    session,
    model: primaryModel(session),
    calibration: fit.calibration,
    recordedPolicy: fit.policy,
    fidelity: fit.fidelity,
    warmStaticBlock: fit.warmStaticBlock,
    results,
  };
}

/** A median per-request prompt error below this is a fit no other policy needs to beat. */
export const GOOD_FIT_MEDIAN_ERROR_PCT = 0.5;

type RecordedFit = {
  readonly policy: RecordedPolicy;
  readonly calibration: TokenCalibration;
  readonly result: ReplayResult;
  readonly fidelity: Fidelity;
  readonly warmStaticBlock: boolean;
};

/**
 * Each candidate policy is replayed once to learn what was visible at every measured request,
 * calibrated on it, and replayed again; the candidate whose prompts match best wins (the first,
 * i.e. the date's choice, on a tie or without measurements).
 */
function fitRecorded(session: Session, scenario: Scenario, options: SimulateOptions, hookBlocks: boolean): RecordedFit {
  let best: RecordedFit | null = null;
  for (const policy of recordedPolicyCandidates(session)) {
    const replay = (calibration: TokenCalibration, warmStaticBlock: boolean) =>
      replaySession({ session, scenario, calibration, recordedPolicy: policy, modelFacts: options.modelFacts, preCompactHookBlocks: hookBlocks, warmStaticBlock });
    const probe = replay(calibrateTokens([]), false);
    const points: CalibrationPoint[] = [];
    for (const row of probe.rows) {
      if (row.kind !== 'request' || row.sourceRequestIndex === null) continue;
      const request = session.requests[row.sourceRequestIndex];
      if (request === undefined || request.agentId !== null || request.usage === null) continue;
      const usage = request.usage;
      points.push({ promptTokens: usage.promptTokens - row.fixedTokens, visibleChars: row.visibleChars, visibleSegments: row.visibleUnits });
    }
    const calibration = calibrateTokens(points);
    const warmStaticBlock = startsWarm(session, calibration);
    const result = replay(calibration, warmStaticBlock);
    const fidelity = measureFidelity(session, result.rows);
    const candidate: RecordedFit = { policy, calibration, result, fidelity, warmStaticBlock };
    if (best === null || score(candidate.fidelity) < score(best.fidelity)) best = candidate;
    // The date's candidate comes first; when it already reproduces the measured prompts the
    // others cannot do meaningfully better, and each costs two more replays.
    if (fidelity.measuredRequests === 0 || (fidelity.medianRequestErrorPct ?? Number.POSITIVE_INFINITY) < GOOD_FIT_MEDIAN_ERROR_PCT) break;
  }
  if (best === null) throw new Error('invariant: at least one recorded policy candidate');
  return best;
}

/** Lower is better: the median per-request error, then the total error. */
function score(fidelity: Fidelity): number {
  if (fidelity.medianRequestErrorPct === null) return Number.POSITIVE_INFINITY;
  return fidelity.medianRequestErrorPct * 1_000 + Math.abs(fidelity.promptTokensErrorPct ?? 0);
}
