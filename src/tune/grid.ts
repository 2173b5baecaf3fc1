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
import type { Scenario, ScenarioFamily, ScenarioOverrides } from '../simulate/scenario.js';
import { buildScenarios, familyDefaults } from '../simulate/scenario.js';

export type Ttl = '5m' | '1h';

/** Overrides that take one value for the whole sweep (the grid axes are separate). */
export type FixedOverrides = Omit<ScenarioOverrides, 'targetTokens' | 'bufferTokens' | 'preserveRecentTurns' | 'ttl'>;

export type SweepGrid = {
  /** Families in the order asked for; `recorded` is always added first and needs no mention. */
  readonly families: readonly ScenarioFamily[];
  /** Targets of the curve, in tokens (sorted ascending and deduplicated by `sweepScenarios`). */
  readonly targetTokens: readonly number[];
  /** null: the family's default. */
  readonly bufferTokens: readonly number[] | null;
  readonly preserveRecentTurns: readonly number[] | null;
  readonly ttls: readonly Ttl[] | null;
  readonly fixed: FixedOverrides;
};

/** A sweep larger than this is almost certainly a typo in a range (`1..400000:1`). */
export { MAX_SWEEP_SCENARIOS } from './limits.js';

/** Whether the family's trigger is a cost target, i.e. whether the target axis applies to it. */
export function familyHasTarget(family: ScenarioFamily): boolean {
  return familyDefaults(family).targetTokens !== null && familyDefaults(family).compaction === 'engine';
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
    if (family === 'none') size += ttls;
    else size += ttls * combos * (familyHasTarget(family) ? Math.max(1, sortedUnique(grid.targetTokens).length) : 1);
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
  const targets = sortedUnique(grid.targetTokens);
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
    for (const ttl of ttls) {
      if (family === 'none') {
        add(buildScenarios([family], { ...grid.fixed, ...(ttl === undefined ? {} : { ttl }) }));
        continue;
      }
      for (const buffer of buffers) {
        for (const preserve of turns) {
          const overrides: ScenarioOverrides = {
            ...grid.fixed,
            ...(ttl === undefined ? {} : { ttl }),
            ...(buffer === undefined ? {} : { bufferTokens: buffer }),
            ...(preserve === undefined ? {} : { preserveRecentTurns: preserve }),
            ...(familyHasTarget(family) && targets.length > 0 ? { targetTokens: targets } : {}),
          };
          add(buildScenarios([family], overrides));
        }
      }
    }
  }
  return scenarios;
}

/**
 * Scenarios of one series differ only in their target: the key is the family and every other
 * parameter. Two scenarios with the same key lie on one cost curve.
 */
export function seriesKey(scenario: Scenario): string {
  return JSON.stringify([scenario.family, { ...scenario.params, targetTokens: null }]);
}

/** A series' display name: the scenario name without its `@target` (`freecode,ttl=1h`). */
export function seriesLabel(scenario: Scenario): string {
  return scenario.name.replace(/@\d+/, '');
}

/** Whether a scenario is a point of a target curve (its family sweeps the target). */
export function isCurvePoint(scenario: Scenario): boolean {
  return familyHasTarget(scenario.family) && scenario.params.targetTokens !== null;
}
