/**
 * What `simulate` keeps of one session once it is replayed: its rows, the facts the report prints,
 * and (for the HTML drill-down) its meta and flags. Plain data, so that a session replayed on a
 * worker thread (`simulate-share.ts`) comes back as the same value the main thread would have made.
 */
import type { PriceTable } from '../cost/price-table.js';
import {
  BASELINE_SCENARIO,
  detectSessionFlagKinds,
  detectSessionFlags,
  type FlagKindOf,
} from '../detect/detect-session.js';
import type { DetectOptions } from '../detect/detect-session.js';
import type { Flag } from '../detect/flag.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import { type FlagJson, flagJson, sortFlags } from '../report/flag-json.js';
import type { SessionFacts } from '../report/simulate-report.js';
import type { SessionMeta } from '../report/simulate-details.js';
import type { IngestIssue, Session } from '../session/model.js';
import type { ModelFacts } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { fidelityNote, simulationRows, type SimulationRows } from '../simulate/to-rows.js';
import type { ReplayFacts } from '../cost/fleet/recorder.js';
import type { ReplayedSession } from './replay-session.js';
import { replayWithPrices } from './replay-session.js';

/** What every session of a run is replayed with (sent once to each worker thread). */
export type OutcomeConfig = {
  readonly scenarios: readonly Scenario[];
  readonly prices: PriceTable;
  /** Also keep each session's meta and sorted flags (`--html`). */
  readonly details: boolean;
  /**
   * Nothing reads the flags `replaySession` returns (no `--db` recorder takes them). It then returns
   * none, and without `details` works out only each scenario's flag kinds (the session rows'
   * `flags`), leaving out the engine walk that only a blocked-hook storm's dollars need. Absent:
   * the flags are read.
   */
  readonly flagsUnread?: boolean;
};

/** One session's part of the report; `replay` null = it has no per-request data (not replayed). */
export type SessionOutcome = {
  readonly sessionId: string;
  readonly issues: readonly IngestIssue[];
  readonly replay: {
    readonly rows: SimulationRows;
    readonly facts: SessionFacts;
    /** With `details`: the drill-down's meta and flags; else null. */
    readonly details: { readonly meta: SessionMeta; readonly flags: readonly FlagJson[] } | null;
  } | null;
};

/** The kinds of flag each scenario raises, in detection order (the sessions rows' `flags`). */
export function flagsByScenario(flags: readonly FlagKindOf[]): Map<string, string[]> {
  const byScenario = new Map<string, string[]>();
  for (const flag of flags) {
    const list = byScenario.get(flag.scenario) ?? [];
    list.push(flag.kind);
    byScenario.set(flag.scenario, list);
  }
  return byScenario;
}

/** What the `simulate` report prints of a replayed session beyond its rows (`fleet.sessions`). */
export function replayFacts(simulation: SessionSimulation): ReplayFacts {
  return {
    model: simulation.model,
    recordedPolicy: simulation.recordedPolicy.basis,
    charsPerToken: 1 / simulation.calibration.tokensPerChar,
    staticBlockTokens: simulation.calibration.staticBlockTokens,
    fidelityNote: fidelityNote(simulation),
  };
}

/** The scenario the flags' dollars are measured against (the default target), when the run replays it. */
export function baselineScenario(scenarios: readonly Scenario[]): Scenario | undefined {
  return scenarios.find(
    (s) => s.name === BASELINE_SCENARIO.name && JSON.stringify(s.params) === JSON.stringify(BASELINE_SCENARIO.params),
  );
}

/** What the flags of a simulation are detected with (default thresholds); null without the baseline scenario. */
function detectOptions(
  simulation: SessionSimulation,
  scenarios: readonly Scenario[],
  prices: PriceTable,
  modelFacts: (model: string) => ModelFacts,
): DetectOptions | null {
  const baseline = baselineScenario(scenarios);
  if (baseline === undefined) return null;
  const examined = simulation.results.filter((r) => r.scenario.family !== 'recorded').map((r) => r.scenario.name);
  return { prices, modelFacts, thresholds: DEFAULT_THRESHOLDS, baseline, examined };
}

/** The flags of every scenario (default thresholds); none without the baseline scenario. */
export function sessionFlags(
  simulation: SessionSimulation,
  scenarios: readonly Scenario[],
  prices: PriceTable,
  modelFacts: (model: string) => ModelFacts,
): Flag[] {
  const options = detectOptions(simulation, scenarios, prices, modelFacts);
  return options === null ? [] : detectSessionFlags(simulation, options);
}

/** `sessionFlags`' kinds and scenarios, in its order (`detectSessionFlagKinds`). */
export function sessionFlagKinds(
  simulation: SessionSimulation,
  scenarios: readonly Scenario[],
  prices: PriceTable,
  modelFacts: (model: string) => ModelFacts,
): FlagKindOf[] {
  const options = detectOptions(simulation, scenarios, prices, modelFacts);
  return options === null ? [] : detectSessionFlagKinds(simulation, options);
}

/** A replayed session's rows (with each scenario's flag kinds when the run flags) and report facts. */
function replayOutcome(
  session: Session,
  replayed: ReplayedSession,
  flags: readonly FlagKindOf[],
  details: readonly Flag[] | null,
  config: OutcomeConfig,
): SessionOutcome {
  const { simulation } = replayed;
  const flagged = baselineScenario(config.scenarios) !== undefined;
  const rows = simulationRows(simulation, flagged ? flagsByScenario(flags) : undefined);
  let drillDown = null;
  if (details !== null) {
    const times = session.requests.map((r) => r.timestampMs).filter((t): t is number => t !== null);
    drillDown = {
      meta: {
        sessionId: session.id,
        project: session.project,
        startedAtMs: times.length === 0 ? null : Math.min(...times),
      },
      flags: sortFlags(
        details.map(flagJson),
        config.scenarios.map((sc) => sc.name),
      ),
    };
  }
  return {
    sessionId: session.id,
    issues: session.issues,
    replay: { rows, facts: { sessionId: session.id, ...replayFacts(simulation) }, details: drillDown },
  };
}

/**
 * Replays `session` (the whole step of a thread that replays sessions): its outcome, and the
 * simulation and flags that `--db`'s recorder takes (null and none when it was not replayed; no
 * flags with `flagsUnread`).
 */
export function replaySession(
  session: Session,
  config: OutcomeConfig,
): {
  readonly outcome: SessionOutcome;
  readonly simulation: SessionSimulation | null;
  readonly flags: readonly Flag[];
} {
  const replayed = replayWithPrices(session, config.scenarios, config.prices);
  if (replayed === null)
    return { outcome: { sessionId: session.id, issues: session.issues, replay: null }, simulation: null, flags: [] };
  const { simulation, modelFacts } = replayed;
  if (config.flagsUnread === true && !config.details) {
    const kinds = sessionFlagKinds(simulation, config.scenarios, config.prices, modelFacts);
    return { outcome: replayOutcome(session, replayed, kinds, null, config), simulation, flags: [] };
  }
  const flags = sessionFlags(simulation, config.scenarios, config.prices, modelFacts);
  const outcome = replayOutcome(session, replayed, flags, config.details ? flags : null, config);
  return { outcome, simulation, flags: config.flagsUnread === true ? [] : flags };
}
