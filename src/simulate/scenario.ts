/**
 * Scenarios (replay.md §7): named, serializable configurations of the engine, the pruning
 * policy, the summarizer and the cache TTL under which a session is replayed. `recorded` is the
 * policy the agent actually ran and is always simulated, so that every comparison is made
 * against it and modelling error cancels (replay.md §3).
 */
import type { PruningChoice, Scenario, ScenarioFamily, ScenarioParams, ToolResultEditing } from './scenario-schema.js';

export type {
  CompactionChoice,
  PruningChoice,
  Scenario,
  ScenarioFamily,
  ScenarioParams,
  ToolResultEditing,
  TriggerRule,
} from './scenario-schema.js';

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
  editing: { kind: 'none' },
};

/** Observation masking: M = 10, the JetBrains study's setting (replay.md §7). */
export const DEFAULT_MASKING: ToolResultEditing = { kind: 'observation-masking', keepToolResults: 10 };

/** Anthropic `clear_tool_uses_20250919` defaults: trigger 100,000 input tokens, keep 3 tool uses, no minimum, no exclusions. */
export const DEFAULT_CLEAR_TOOL_USES: ToolResultEditing = {
  kind: 'clear-tool-uses',
  triggerTokens: 100_000,
  keepToolUses: 3,
  clearAtLeastTokens: 0,
  excludeTools: [],
};

/** opencode's prune: PRUNE_PROTECT = 40,000, PRUNE_MINIMUM = 20,000, PRUNE_PROTECTED_TOOLS = ["skill"] (session/compaction.ts). */
export const DEFAULT_OPENCODE_PRUNE: ToolResultEditing = {
  kind: 'opencode-prune',
  protectTokens: 40_000,
  minimumTokens: 20_000,
  protectedTools: ['skill'],
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
    // Editing families on their own layer on what the agent ran (its compactions and pruning as
    // recorded): the question is "what if we added this to what we run".
    case 'observation-masking':
      return { ...familyDefaults('recorded'), editing: DEFAULT_MASKING };
    case 'clear-tool-uses':
      return { ...familyDefaults('recorded'), editing: DEFAULT_CLEAR_TOOL_USES };
    case 'opencode':
      // opencode compacts when the context overflows its usable window (overflow.ts, no buffer)
      // and keeps a recent tail of at most MAX_PRESERVE_RECENT_TOKENS = 15,000 (compaction.ts);
      // the selection itself is FreeCode's (README.md "Policies of the field").
      return {
        ...FREECODE_DEFAULTS,
        trigger: 'opencode',
        targetTokens: null,
        bufferTokens: 0,
        maxPreserveRecentTokens: 15_000,
        pruning: 'none',
        editing: DEFAULT_OPENCODE_PRUNE,
      };
    case 'freecode+observation-masking':
      return { ...FREECODE_DEFAULTS, editing: DEFAULT_MASKING };
    case 'freecode+clear-tool-uses':
      return { ...FREECODE_DEFAULTS, editing: DEFAULT_CLEAR_TOOL_USES };
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
  /** Observation masking's M; a list makes one scenario each. */
  readonly keepToolResults?: readonly number[];
  /** clear-tool-uses' trigger; a list makes one scenario each. */
  readonly clearTriggerTokens?: readonly number[];
  readonly clearKeepToolUses?: number;
  readonly clearAtLeastTokens?: number;
  readonly clearExcludeTools?: readonly string[];
  /** opencode's protected budget; a list makes one scenario each. */
  readonly pruneProtectTokens?: readonly number[];
  readonly pruneMinimumTokens?: number;
};

/**
 * The knob a family's cost curve runs along (`tune`), shown as `family@value` in its scenario
 * names: the compaction target, observation masking's M, clear-tool-uses' trigger, or opencode's
 * protected budget. Each is
 * oriented so that a larger value keeps more context. null: a reference point without a knob.
 */
export type CurveKnob = 'target' | 'keep-results' | 'clear-trigger' | 'prune-protect';

export function familyKnob(family: ScenarioFamily): CurveKnob | null {
  switch (family) {
    case 'freecode':
    case 'freecode+observation-masking':
    case 'freecode+clear-tool-uses':
      return 'target';
    case 'observation-masking':
      return 'keep-results';
    case 'clear-tool-uses':
      return 'clear-trigger';
    case 'opencode':
      return 'prune-protect';
    case 'recorded':
    case 'window-only':
    case 'claude-code':
    case 'codex':
    case 'none':
      return null;
    default: {
      const unreachable: never = family;
      return unreachable;
    }
  }
}

/** The scenario's value of its family's knob; null when the family has none. */
export function knobValue(scenario: Scenario): number | null {
  const knob = familyKnob(scenario.family);
  const editing = scenario.params.editing;
  switch (knob) {
    case 'target':
      return scenario.params.targetTokens;
    case 'keep-results':
      return editing.kind === 'observation-masking' ? editing.keepToolResults : null;
    case 'clear-trigger':
      return editing.kind === 'clear-tool-uses' ? editing.triggerTokens : null;
    case 'prune-protect':
      return editing.kind === 'opencode-prune' ? editing.protectTokens : null;
    case null:
      return null;
    default: {
      const unreachable: never = knob;
      return unreachable;
    }
  }
}

type ListValues = {
  readonly target?: number;
  readonly keepResults?: number;
  readonly clearTrigger?: number;
  readonly pruneProtect?: number;
};

/** The value lists that apply to a family: a list given for a parameter the family lacks is ignored. */
function listCombinations(family: ScenarioFamily, o: ScenarioOverrides): ListValues[] {
  const editing = familyDefaults(family).editing.kind;
  const targets = familyKnob(family) === 'target' && o.targetTokens !== undefined ? o.targetTokens : [undefined];
  const keeps = editing === 'observation-masking' && o.keepToolResults !== undefined ? o.keepToolResults : [undefined];
  const triggers =
    editing === 'clear-tool-uses' && o.clearTriggerTokens !== undefined ? o.clearTriggerTokens : [undefined];
  const protects =
    editing === 'opencode-prune' && o.pruneProtectTokens !== undefined ? o.pruneProtectTokens : [undefined];
  const out: ListValues[] = [];
  for (const target of targets) {
    for (const keepResults of keeps) {
      for (const clearTrigger of triggers) {
        for (const pruneProtect of protects) {
          out.push({
            ...(target !== undefined ? { target } : {}),
            ...(keepResults !== undefined ? { keepResults } : {}),
            ...(clearTrigger !== undefined ? { clearTrigger } : {}),
            ...(pruneProtect !== undefined ? { pruneProtect } : {}),
          });
        }
      }
    }
  }
  return out;
}

/**
 * The scenarios to simulate: `recorded` first, then one per requested family and per value of
 * its lists (a comma list of targets, of `--keep-results`, `--clear-trigger` or `--prune-protect` makes one
 * scenario each). Names are unique and stable so that reports and CSV files can be compared
 * across runs.
 */
export function buildScenarios(families: readonly ScenarioFamily[], overrides: ScenarioOverrides): Scenario[] {
  const scenarios: Scenario[] = [
    { name: 'recorded', family: 'recorded', params: withTtl(familyDefaults('recorded'), overrides) },
  ];
  const seen = new Set<string>(['recorded']);
  for (const family of families) {
    if (family === 'recorded') continue;
    const combinations = listCombinations(family, overrides);
    const multiple = {
      target: new Set(combinations.map((c) => c.target)).size > 1,
      keepResults: new Set(combinations.map((c) => c.keepResults)).size > 1,
      clearTrigger: new Set(combinations.map((c) => c.clearTrigger)).size > 1,
    };
    for (const values of combinations) {
      const params = applyOverrides(familyDefaults(family), overrides, values);
      const name = scenarioName(family, params, multiple);
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

/** The family's editing with the overrides that apply to its kind. */
function editingWith(editing: ToolResultEditing, o: ScenarioOverrides, values: ListValues): ToolResultEditing {
  switch (editing.kind) {
    case 'none':
      return editing;
    case 'observation-masking':
      return { ...editing, ...(values.keepResults !== undefined ? { keepToolResults: values.keepResults } : {}) };
    case 'clear-tool-uses':
      return {
        ...editing,
        ...(values.clearTrigger !== undefined ? { triggerTokens: values.clearTrigger } : {}),
        ...(o.clearKeepToolUses !== undefined ? { keepToolUses: o.clearKeepToolUses } : {}),
        ...(o.clearAtLeastTokens !== undefined ? { clearAtLeastTokens: o.clearAtLeastTokens } : {}),
        ...(o.clearExcludeTools !== undefined ? { excludeTools: [...o.clearExcludeTools] } : {}),
      };
    case 'opencode-prune':
      return {
        ...editing,
        ...(values.pruneProtect !== undefined ? { protectTokens: values.pruneProtect } : {}),
        ...(o.pruneMinimumTokens !== undefined ? { minimumTokens: o.pruneMinimumTokens } : {}),
      };
    default: {
      const unreachable: never = editing;
      return unreachable;
    }
  }
}

function applyOverrides(base: ScenarioParams, o: ScenarioOverrides, values: ListValues): ScenarioParams {
  return {
    ...base,
    ...(values.target !== undefined ? { targetTokens: values.target } : {}),
    ...(o.windowTokens !== undefined ? { windowTokens: o.windowTokens } : {}),
    ...(o.bufferTokens !== undefined ? { bufferTokens: o.bufferTokens } : {}),
    ...(o.preserveRecentTurns !== undefined ? { preserveRecentTurns: o.preserveRecentTurns } : {}),
    ...(o.maxPreserveRecentTokens !== undefined ? { maxPreserveRecentTokens: o.maxPreserveRecentTokens } : {}),
    ...(o.ttl !== undefined ? { ttl: o.ttl, ttlFromLog: false } : {}),
    ...(o.pruning !== undefined ? { pruning: o.pruning } : {}),
    ...(o.summarizer !== undefined ? { summarizer: o.summarizer } : {}),
    ...(o.selector !== undefined ? { selector: o.selector } : {}),
    editing: editingWith(base.editing, o, values),
  };
}

/**
 * `freecode@120000`, `observation-masking@6`, `window-only`, `none`: a family with a knob always
 * shows its value after `@`; other parameters appear when they differ from the family default
 * (or distinguish scenarios of one run).
 */
function scenarioName(
  family: ScenarioFamily,
  params: ScenarioParams,
  multiple: { readonly target: boolean; readonly keepResults: boolean; readonly clearTrigger: boolean },
): string {
  const defaults = familyDefaults(family);
  const knob = familyKnob(family);
  const parts: string[] = [family];
  const value = knobValue({ name: family, family, params });
  if (knob !== null && value !== null) parts[0] = `${family}@${value}`;
  if (
    knob !== 'target' &&
    params.targetTokens !== null &&
    (multiple.target || params.targetTokens !== defaults.targetTokens)
  ) {
    parts[0] = `${parts[0]}@${params.targetTokens}`;
  }
  if (params.windowTokens !== null) parts.push(`window=${params.windowTokens}`);
  if (params.bufferTokens !== defaults.bufferTokens) parts.push(`buffer=${params.bufferTokens}`);
  if (params.preserveRecentTurns !== defaults.preserveRecentTurns) parts.push(`turns=${params.preserveRecentTurns}`);
  if (params.maxPreserveRecentTokens !== defaults.maxPreserveRecentTokens)
    parts.push(`keep=${params.maxPreserveRecentTokens}`);
  if (params.ttl !== defaults.ttl) parts.push(`ttl=${params.ttl}`);
  if (params.pruning !== defaults.pruning) parts.push(`pruning=${params.pruning}`);
  if (params.summarizer !== defaults.summarizer) parts.push(`summarizer=${params.summarizer}`);
  if (params.selector !== defaults.selector) parts.push(`selector=${params.selector}`);
  parts.push(...editingNameParts(params.editing, defaults.editing, knob, multiple));
  return parts.join(',');
}

/** The editing parameters that differ from the family's (the knob's value is already in the name). */
function editingNameParts(
  editing: ToolResultEditing,
  defaults: ToolResultEditing,
  knob: CurveKnob | null,
  multiple: { readonly keepResults: boolean; readonly clearTrigger: boolean },
): string[] {
  const parts: string[] = [];
  if (editing.kind === 'observation-masking' && defaults.kind === 'observation-masking' && knob !== 'keep-results') {
    if (multiple.keepResults || editing.keepToolResults !== defaults.keepToolResults)
      parts.push(`results=${editing.keepToolResults}`);
  }
  if (editing.kind === 'clear-tool-uses' && defaults.kind === 'clear-tool-uses') {
    if (knob !== 'clear-trigger' && (multiple.clearTrigger || editing.triggerTokens !== defaults.triggerTokens)) {
      parts.push(`clear-trigger=${editing.triggerTokens}`);
    }
    if (editing.keepToolUses !== defaults.keepToolUses) parts.push(`clear-keep=${editing.keepToolUses}`);
    if (editing.clearAtLeastTokens !== defaults.clearAtLeastTokens)
      parts.push(`clear-at-least=${editing.clearAtLeastTokens}`);
    if (editing.excludeTools.join('\u0000') !== defaults.excludeTools.join('\u0000'))
      parts.push(`exclude=${editing.excludeTools.join('+')}`);
  }
  if (editing.kind === 'opencode-prune' && defaults.kind === 'opencode-prune') {
    if (editing.minimumTokens !== defaults.minimumTokens) parts.push(`prune-minimum=${editing.minimumTokens}`);
  }
  return parts;
}
