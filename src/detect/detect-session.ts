/**
 * Flags of one simulated session: the recorded trace and each examined scenario run through
 * every detector. Pure: the session's simulation, prices and thresholds in, flags out. The only
 * extra work is one replay of the default-target scenario with the PreCompact hook allowing, for
 * sessions whose hook blocks (the dollars a blocked-hook storm puts at stake); it replays the
 * session already in memory with the simulation's own calibration, and only once a detector asks
 * for it (a blocked-hook storm was found): about half the sessions whose hook blocks have no storm.
 */
import type { PriceTable } from '../cost/index.js';
import type { CacheRules } from '../provider/cache-rules.js';
import type { ModelFacts } from '../simulate/replay.js';
import { replaySession } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import { familyDefaults } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { preCompactHookBlocks } from '../simulate/simulate-session.js';
import type { DetectorInput } from './detector.js';
import type { Flag } from './flag.js';
import { DETECTORS } from './registry.js';
import type { FlagThresholds } from './thresholds.js';
import type { Trace } from './trace.js';
import { recordedTrace, scenarioTrace } from './trace.js';

/** The default-target scenario every flag's dollars are compared with: FreeCode's defaults, target 120,000. */
export const BASELINE_SCENARIO: Scenario = {
  name: 'freecode@120000',
  family: 'freecode',
  params: familyDefaults('freecode'),
};

export type DetectOptions = {
  readonly prices: PriceTable;
  readonly modelFacts: (model: string) => ModelFacts;
  readonly thresholds: FlagThresholds;
  /** The comparison scenario; it must be among the simulation's results. */
  readonly baseline: Scenario;
  /** Simulated scenarios to examine besides `recorded` (by name). */
  readonly examined: readonly string[];
};

/** `make()` on the first call, its value on every later one. */
function once<T>(make: () => T): () => T {
  let made: { readonly value: T } | null = null;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** Every flag of the session: recorded first, then the examined scenarios in order, detectors in registry order. */
export function detectSessionFlags(simulation: SessionSimulation, options: DetectOptions): Flag[] {
  return detectFlags(simulation, options, true);
}

/** What a list of flags shows without their evidence or dollars: `simulate`'s session rows name each scenario's flag kinds. */
export type FlagKindOf = Pick<Flag, 'kind' | 'scenario'>;

/**
 * The kind and scenario of each flag `detectSessionFlags` raises, in its order, without the
 * hook-allowing replay: that walk prices only a blocked-hook storm's stake, and that stake does not
 * decide whether the flag is raised (every other stake a detector weighs is still worked out).
 */
export function detectSessionFlagKinds(simulation: SessionSimulation, options: DetectOptions): FlagKindOf[] {
  return detectFlags(simulation, options, false).map((flag) => ({ kind: flag.kind, scenario: flag.scenario }));
}

/**
 * The flags; `hookAllowing` false leaves the hook-allowing replay out, so a blocked-hook storm's
 * stake is priced against the baseline instead: such flags must not leave this module.
 */
function detectFlags(simulation: SessionSimulation, options: DetectOptions, hookAllowing: boolean): Flag[] {
  const { session } = simulation;
  const facts = options.modelFacts(simulation.model);
  const result = (name: string) => simulation.results.find((entry) => entry.scenario.name === name);
  const recorded = simulation.results.find((entry) => entry.scenario.family === 'recorded');
  const baselineEntry = result(options.baseline.name);
  if (recorded === undefined || baselineEntry === undefined)
    throw new Error('invariant: the simulation holds the recorded and baseline scenarios');
  const baseline = scenarioTrace(session, baselineEntry.scenario, baselineEntry.result, facts);
  const hookAllowedBaseline =
    hookAllowing && preCompactHookBlocks(session)
      ? once(() => {
          const allowed = replaySession({
            session,
            scenario: baselineEntry.scenario,
            calibration: simulation.calibration,
            recordedPolicy: simulation.recordedPolicy,
            modelFacts: options.modelFacts,
            preCompactHookBlocks: false,
            // The simulation's replays turned the same items into the same messages (same rows either way).
            ...(simulation.memo === undefined ? {} : { memo: simulation.memo }),
          });
          const name = `${baselineEntry.scenario.name} with the PreCompact hook allowing`;
          return scenarioTrace(session, { ...baselineEntry.scenario, name }, allowed, facts);
        })
      : () => null;
  const traces: Trace[] = [recordedTrace(session, recorded.result, facts)];
  for (const name of options.examined) {
    const entry = result(name);
    if (entry === undefined || entry.scenario.family === 'recorded') continue;
    traces.push(name === baseline.scenario ? baseline : scenarioTrace(session, entry.scenario, entry.result, facts));
  }
  const cacheRules = (model: string): CacheRules => options.modelFacts(model).rules;
  const flags: Flag[] = [];
  for (const trace of traces) {
    const input: DetectorInput = {
      session,
      trace,
      baseline,
      hookAllowedBaseline,
      prices: options.prices,
      cacheRules,
      thresholds: options.thresholds,
    };
    for (const detector of DETECTORS) {
      const flag = detector.detect(input);
      if (flag !== null) flags.push(flag);
    }
  }
  return flags;
}
