/**
 * Scenarios (replay.md §7): named, serializable configurations of the engine, the pruning
 * policy, the summarizer and the cache TTL under which a session is replayed. `recorded` is the
 * policy the agent actually ran and is always simulated, so that every comparison is made
 * against it and modelling error cancels (replay.md §3).
 */
import { z } from 'zod';
import { SCENARIO_FAMILY_NAMES } from './scenario-families.js';

export const ScenarioFamilySchema = z.enum(SCENARIO_FAMILY_NAMES);
export type ScenarioFamily = z.infer<typeof ScenarioFamilySchema>;

/** Families a user can ask for with `--scenario`; `recorded` is always added. */
export const SCENARIO_FAMILIES: readonly ScenarioFamily[] = ScenarioFamilySchema.options;

/**
 * How the provider-facing copy is pruned. `recorded` resolves per session to what the agent ran
 * (for FreeCode: the sliding 1,000-char truncation and the time-based microcompact before
 * 2026-08-05, the prefix-stable PruneState after; engine.md §5.6, §5.7, §11).
 */
export const PruningChoiceSchema = z.enum(['recorded', 'prefix-stable', 'sliding-legacy', 'none']);
export type PruningChoice = z.infer<typeof PruningChoiceSchema>;

/** When the replay compacts: where the log shows it, when the engine decides, or never. */
export const CompactionChoiceSchema = z.enum(['recorded', 'engine', 'never']);
export type CompactionChoice = z.infer<typeof CompactionChoiceSchema>;

/** How the compaction trigger's window is derived for the family (replay.md §7). */
export const TriggerRuleSchema = z.enum([
  /** FreeCode: min(usable window, target) − buffer (engine.md §1.2, §1.4). */
  'freecode',
  /** Claude Code: window − min(max output, 20,000) − buffer. */
  'claude-code',
  /** Codex: 95% of the window (its auto-compact limit); the buffer is not subtracted. */
  'codex',
]);
export type TriggerRule = z.infer<typeof TriggerRuleSchema>;

export const ScenarioParamsSchema = z.object({
  compaction: CompactionChoiceSchema,
  trigger: TriggerRuleSchema,
  /** The cost target; null = compaction only near the window. */
  targetTokens: z.number().int().positive().nullable(),
  /** Overrides the model's context window; null = the price table's window for the model. */
  windowTokens: z.number().int().positive().nullable(),
  bufferTokens: z.number().int().nonnegative(),
  preserveRecentTurns: z.number().int().nonnegative(),
  maxPreserveRecentTokens: z.number().int().nonnegative(),
  maxPreserveHeadTokens: z.number().int().nonnegative(),
  holdGrowthTokens: z.number().int().nonnegative(),
  maxOverflowCompactions: z.number().int().nonnegative(),
  pruning: PruningChoiceSchema,
  toolResultBudgetChars: z.number().int().nonnegative(),
  summarizer: z.enum(['llm', 'heuristic']),
  selector: z.enum(['freecode', 'strict']),
  ttl: z.enum(['5m', '1h']),
  /**
   * Whether each request writes at the TTL its measured writes show (the 5m/1h split where the
   * log has it), `ttl` being the fallback where the log does not say. `--ttl` turns it off.
   */
  ttlFromLog: z.boolean(),
});
export type ScenarioParams = z.infer<typeof ScenarioParamsSchema>;

export const ScenarioSchema = z.object({
  name: z.string().min(1),
  family: ScenarioFamilySchema,
  params: ScenarioParamsSchema,
});
export type Scenario = z.infer<typeof ScenarioSchema>;

/** FreeCode's newest defaults (engine.md §1, §2.1, §4.4, §5.4, §5.6). */
const FREECODE_DEFAULTS: ScenarioParams = {
  compaction: 'engine',
  trigger: 'freecode',
  targetTokens: 120_000,
  windowTokens: null,
  bufferTokens: 13_000,
  preserveRecentTurns: 2,
  maxPreserveRecentTokens: 8_000,
  maxPreserveHeadTokens: 2_000,
  holdGrowthTokens: 5_000,
  maxOverflowCompactions: 3,
  pruning: 'prefix-stable',
  toolResultBudgetChars: 200_000,
  summarizer: 'llm',
  selector: 'freecode',
  ttl: '5m',
  ttlFromLog: true,
};

/** The base parameters of each family before user overrides. */
export function familyDefaults(family: ScenarioFamily): ScenarioParams {
  switch (family) {
    case 'recorded':
      return { ...FREECODE_DEFAULTS, compaction: 'recorded', targetTokens: null, pruning: 'recorded' };
    case 'freecode':
      return { ...FREECODE_DEFAULTS };
    case 'window-only':
      // FreeCode before the cost target (engine.md §9.2 RC1): the trigger sits near the window;
      // only the compaction policy changes, the pruning stays what the agent ran.
      return { ...FREECODE_DEFAULTS, targetTokens: null, pruning: 'recorded' };
    case 'claude-code':
      return { ...FREECODE_DEFAULTS, trigger: 'claude-code', targetTokens: null };
    case 'codex':
      return { ...FREECODE_DEFAULTS, trigger: 'codex', targetTokens: null, bufferTokens: 0 };
    case 'none':
      return { ...FREECODE_DEFAULTS, compaction: 'never', targetTokens: null, pruning: 'none' };
    default: {
      const unreachable: never = family;
      return unreachable;
    }
  }
}

/** User overrides from the command line; an absent field keeps the family's value. */
export type ScenarioOverrides = {
  readonly targetTokens?: readonly number[];
  readonly windowTokens?: number;
  readonly bufferTokens?: number;
  readonly preserveRecentTurns?: number;
  readonly maxPreserveRecentTokens?: number;
  readonly ttl?: '5m' | '1h';
  readonly pruning?: PruningChoice;
  readonly summarizer?: 'llm' | 'heuristic';
  readonly selector?: 'freecode' | 'strict';
};

/**
 * The scenarios to simulate: `recorded` first, then one per requested family and per target
 * value (a comma list of targets makes one scenario each). Names are unique and stable so that
 * reports and CSV files can be compared across runs.
 */
export function buildScenarios(families: readonly ScenarioFamily[], overrides: ScenarioOverrides): Scenario[] {
  const scenarios: Scenario[] = [{ name: 'recorded', family: 'recorded', params: withTtl(familyDefaults('recorded'), overrides) }];
  const seen = new Set<string>(['recorded']);
  for (const family of families) {
    if (family === 'recorded') continue;
    // A target is the `freecode` family's knob; the others derive their trigger from the window.
    const targets = family !== 'freecode' || overrides.targetTokens === undefined ? [undefined] : overrides.targetTokens;
    for (const target of targets) {
      const params = applyOverrides(familyDefaults(family), overrides, target);
      const name = scenarioName(family, params, target !== undefined && targets.length > 1);
      if (seen.has(name)) continue;
      seen.add(name);
      scenarios.push({ name, family, params });
    }
  }
  return scenarios;
}

function withTtl(params: ScenarioParams, overrides: ScenarioOverrides): ScenarioParams {
  return overrides.ttl === undefined ? params : { ...params, ttl: overrides.ttl, ttlFromLog: false };
}

function applyOverrides(base: ScenarioParams, o: ScenarioOverrides, target: number | undefined): ScenarioParams {
  return {
    ...base,
    ...(target !== undefined ? { targetTokens: target } : {}),
    ...(o.windowTokens !== undefined ? { windowTokens: o.windowTokens } : {}),
    ...(o.bufferTokens !== undefined ? { bufferTokens: o.bufferTokens } : {}),
    ...(o.preserveRecentTurns !== undefined ? { preserveRecentTurns: o.preserveRecentTurns } : {}),
    ...(o.maxPreserveRecentTokens !== undefined ? { maxPreserveRecentTokens: o.maxPreserveRecentTokens } : {}),
    ...(o.ttl !== undefined ? { ttl: o.ttl, ttlFromLog: false } : {}),
    ...(o.pruning !== undefined ? { pruning: o.pruning } : {}),
    ...(o.summarizer !== undefined ? { summarizer: o.summarizer } : {}),
    ...(o.selector !== undefined ? { selector: o.selector } : {}),
  };
}

/** `freecode@120000`, `window-only`, `none`: the target appears when it distinguishes scenarios or differs from the default. */
function scenarioName(family: ScenarioFamily, params: ScenarioParams, multipleTargets: boolean): string {
  const defaults = familyDefaults(family);
  const parts: string[] = [family];
  if (params.targetTokens !== null && (multipleTargets || params.targetTokens !== defaults.targetTokens || family === 'freecode')) {
    parts[0] = `${family}@${params.targetTokens}`;
  }
  if (params.windowTokens !== null) parts.push(`window=${params.windowTokens}`);
  if (params.bufferTokens !== defaults.bufferTokens) parts.push(`buffer=${params.bufferTokens}`);
  if (params.preserveRecentTurns !== defaults.preserveRecentTurns) parts.push(`turns=${params.preserveRecentTurns}`);
  if (params.maxPreserveRecentTokens !== defaults.maxPreserveRecentTokens) parts.push(`keep=${params.maxPreserveRecentTokens}`);
  if (params.ttl !== defaults.ttl) parts.push(`ttl=${params.ttl}`);
  if (params.pruning !== defaults.pruning) parts.push(`pruning=${params.pruning}`);
  if (params.summarizer !== defaults.summarizer) parts.push(`summarizer=${params.summarizer}`);
  if (params.selector !== defaults.selector) parts.push(`selector=${params.selector}`);
  return parts.join(',');
}
