/**
 * The sweep grid (replay.md §10): target × buffer × preserve-turns × TTL × family, expanded into
 * named scenarios with `buildScenarios` so that a tune scenario and a simulate scenario of the
 * same parameters carry the same name and replay identically.
 *
 * The target axis applies to the families whose trigger is a cost target (`freecode`); the
 * others (`window-only`, `claude-code`, `codex`, `none`) have no target by definition and are
 * reference points, one per buffer × preserve-turns × TTL combination (`none` never compacts, so
 * only the TTL varies it).
 */
import type { CurveKnob, Scenario, ScenarioFamily, ScenarioOverrides } from '../simulate/scenario.js';
import { buildScenarios, familyDefaults, familyKnob, knobValue } from '../simulate/scenario.js';

export type Ttl = '5m' | '1h';

/** Overrides that take one value for the whole sweep (the grid axes are separate). */
export type FixedOverrides = Omit<
  ScenarioOverrides,
  | 'targetTokens'
  | 'bufferTokens'
  | 'preserveRecentTurns'
  | 'ttl'
  | 'keepToolResults'
  | 'clearTriggerTokens'
  | 'pruneProtectTokens'
>;

/** The curve of observation masking's M when none is given (M = 10 is the JetBrains study's). */
export const DEFAULT_KEEP_RESULTS_GRID: readonly number[] = [1, 2, 3, 4, 6, 8, 10, 15, 20];
/** The curve of clear-tool-uses' trigger when none is given: 40K to 200K in steps of 20K (default 100K). */
/** The curve of opencode's protected budget when none is given: 10K to 80K in steps of 10K (default 40K). */
export const DEFAULT_PRUNE_PROTECT_GRID: readonly number[] = [
  10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000,
];
export const DEFAULT_CLEAR_TRIGGER_GRID: readonly number[] = [
  40_000, 60_000, 80_000, 100_000, 120_000, 140_000, 160_000, 180_000, 200_000,
];

export type SweepGrid = {
  /** Families in the order asked for; `recorded` is always added first and needs no mention. */
  readonly families: readonly ScenarioFamily[];
  /** Targets of the curve, in tokens (sorted ascending and deduplicated by `sweepScenarios`). */
  readonly targetTokens: readonly number[];
  /** null: the family's default. */
  readonly bufferTokens: readonly number[] | null;
  readonly preserveRecentTurns: readonly number[] | null;
  readonly ttls: readonly Ttl[] | null;
  /**
   * Observation masking's M: the curve of `observation-masking` (null: `DEFAULT_KEEP_RESULTS_GRID`);
   * for a family that masks along another knob, one series per value (null: the family default).
   */
  readonly keepToolResults?: readonly number[] | null;
  /** clear-tool-uses' trigger, the same way (null: `DEFAULT_CLEAR_TRIGGER_GRID` on its own curve). */
  readonly clearTriggerTokens?: readonly number[] | null;
  /** opencode's protected budget: its curve (null: `DEFAULT_PRUNE_PROTECT_GRID`). */
  readonly pruneProtectTokens?: readonly number[] | null;
  readonly fixed: FixedOverrides;
};

/** A sweep larger than this is almost certainly a typo in a range (`1..400000:1`). */
export { MAX_SWEEP_SCENARIOS } from './limits.js';

/** Whether the family's trigger is a cost target, i.e. whether the target axis applies to it. */
export function familyHasTarget(family: ScenarioFamily): boolean {
  return familyKnob(family) === 'target';
}

/** Whether the engine's compaction parameters (buffer, preserve-turns) reach the family's replay. */
function compactsByEngine(family: ScenarioFamily): boolean {
  return familyDefaults(family).compaction === 'engine';
}

/** The list overrides of one family's scenarios: its knob's curve, and the other editing lists as series. */
function curveOverrides(family: ScenarioFamily, grid: SweepGrid): ScenarioOverrides {
  const knob = familyKnob(family);
  const editing = familyDefaults(family).editing.kind;
  const targets = sortedUnique(grid.targetTokens);
  const keeps =
    knob === 'keep-results' ? (grid.keepToolResults ?? DEFAULT_KEEP_RESULTS_GRID) : (grid.keepToolResults ?? null);
  const triggers =
    knob === 'clear-trigger'
      ? (grid.clearTriggerTokens ?? DEFAULT_CLEAR_TRIGGER_GRID)
      : (grid.clearTriggerTokens ?? null);
  const protects =
    knob === 'prune-protect'
      ? (grid.pruneProtectTokens ?? DEFAULT_PRUNE_PROTECT_GRID)
      : (grid.pruneProtectTokens ?? null);
  return {
    ...(knob === 'target' && targets.length > 0 ? { targetTokens: targets } : {}),
    ...(editing === 'observation-masking' && keeps !== null && keeps.length > 0
      ? { keepToolResults: sortedUnique(keeps) }
      : {}),
    ...(editing === 'clear-tool-uses' && triggers !== null && triggers.length > 0
      ? { clearTriggerTokens: sortedUnique(triggers) }
      : {}),
    ...(editing === 'opencode-prune' && protects !== null && protects.length > 0
      ? { pruneProtectTokens: sortedUnique(protects) }
      : {}),
  };
}

/** How many scenarios one family makes per TTL × buffer × preserve combination. */
function curveSize(family: ScenarioFamily, grid: SweepGrid): number {
  const o = curveOverrides(family, grid);
  const sizes = [o.targetTokens, o.keepToolResults, o.clearTriggerTokens, o.pruneProtectTokens].map((list) =>
    Math.max(1, list?.length ?? 1),
  );
  return sizes.reduce((product, size) => product * size, 1);
}

/** `start, start + step, …` up to and including `end` when it falls on a step; empty when start > end. */
export function expandRange(start: number, end: number, step: number): number[] {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || !Number.isSafeInteger(step) || step <= 0) {
    throw new RangeError(`invalid range ${start}..${end}:${step}`);
  }
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return values;
}

/** Ascending, without duplicates. */
export function sortedUnique(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

/** How many scenarios a grid expands to (recorded included), without building them. */
export function sweepSize(grid: SweepGrid): number {
  const combos = (grid.bufferTokens?.length ?? 1) * (grid.preserveRecentTurns?.length ?? 1);
  const ttls = grid.ttls?.length ?? 1;
  let size = 1;
  for (const family of new Set(grid.families)) {
    if (family === 'recorded') continue;
    size += ttls * (compactsByEngine(family) ? combos : 1) * curveSize(family, grid);
  }
  return size;
}

/**
 * The scenarios of the sweep: `recorded` first, then per family, TTL, buffer and preserve-turns
 * the targets in ascending order (the replay relies on that order to reuse saturated results, see
 * `sweep-session.ts`). `recorded` takes the TTL only when one TTL is given, as `simulate` does;
 * with several it keeps the family default, the TTL the agent ran with. Names are unique.
 */
export function sweepScenarios(grid: SweepGrid): Scenario[] {
  const ttls: readonly (Ttl | undefined)[] = grid.ttls ?? [undefined];
  const buffers: readonly (number | undefined)[] = grid.bufferTokens ?? [undefined];
  const turns: readonly (number | undefined)[] = grid.preserveRecentTurns ?? [undefined];
  const singleTtl = grid.ttls?.length === 1 ? grid.ttls[0] : undefined;
  const recorded = buildScenarios([], singleTtl === undefined ? {} : { ttl: singleTtl })[0];
  if (recorded === undefined) throw new Error('invariant: buildScenarios always yields recorded');
  const scenarios: Scenario[] = [recorded];
  const seen = new Set<string>([recorded.name]);
  const add = (built: readonly Scenario[]) => {
    for (const scenario of built) {
      if (scenario.family === 'recorded' || seen.has(scenario.name)) continue;
      seen.add(scenario.name);
      scenarios.push(scenario);
    }
  };
  for (const family of grid.families) {
    if (family === 'recorded') continue;
    const curve = curveOverrides(family, grid);
    for (const ttl of ttls) {
      if (!compactsByEngine(family)) {
        // `none` never compacts and the editing families compact where the log did: buffer and
        // preserve-turns do not reach them, only the TTL and their own knob.
        add(buildScenarios([family], { ...grid.fixed, ...curve, ...(ttl === undefined ? {} : { ttl }) }));
        continue;
      }
      for (const buffer of buffers) {
        for (const preserve of turns) {
          const overrides: ScenarioOverrides = {
            ...grid.fixed,
            ...(ttl === undefined ? {} : { ttl }),
            ...(buffer === undefined ? {} : { bufferTokens: buffer }),
            ...(preserve === undefined ? {} : { preserveRecentTurns: preserve }),
            ...curve,
          };
          add(buildScenarios([family], overrides));
        }
      }
    }
  }
  return scenarios;
}

/** The scenario with its family's knob blanked: what the points of one curve share. */
function withoutKnob(scenario: Scenario): Scenario['params'] {
  const params = scenario.params;
  switch (familyKnob(scenario.family)) {
    case 'target':
      return { ...params, targetTokens: null };
    case 'keep-results':
      return params.editing.kind === 'observation-masking'
        ? { ...params, editing: { ...params.editing, keepToolResults: -1 } }
        : params;
    case 'clear-trigger':
      return params.editing.kind === 'clear-tool-uses'
        ? { ...params, editing: { ...params.editing, triggerTokens: -1 } }
        : params;
    case 'prune-protect':
      return params.editing.kind === 'opencode-prune'
        ? { ...params, editing: { ...params.editing, protectTokens: -1 } }
        : params;
    case null:
      return params;
    default:
      return params;
  }
}

/**
 * Scenarios of one series differ only in their family's knob (target, M, trigger): the key is
 * the family and every other parameter. Two scenarios with the same key lie on one cost curve.
 */
export function seriesKey(scenario: Scenario): string {
  return JSON.stringify([scenario.family, withoutKnob(scenario)]);
}

/** A series' display name: the scenario name without its `@value` (`freecode,ttl=1h`). */
export function seriesLabel(scenario: Scenario): string {
  return scenario.name.replace(/@\d+/, '');
}

/** The knob a scenario's curve runs along, and its value there; null when it is a reference point. */
export function curvePosition(scenario: Scenario): { readonly knob: CurveKnob; readonly value: number } | null {
  const knob = familyKnob(scenario.family);
  const value = knobValue(scenario);
  return knob === null || value === null ? null : { knob, value };
}

/** Whether a scenario is a point of a curve (its family sweeps a knob). */
export function isCurvePoint(scenario: Scenario): boolean {
  return curvePosition(scenario) !== null;
}
