/**
 * The zod schemas of scenarios (`scenario.ts`): what a scenario read back from a file or a fleet
 * export must hold. Apart from `scenario.ts` so that `simulate`, `tune` and the detectors, which
 * build their scenarios themselves, do not build these schemas (~40 zod objects, 10-20 ms of every
 * such run) nor load zod for them; `fleet-simulate` reads scenarios from exports and parses them here.
 */
import { z } from 'zod';
import { SCENARIO_FAMILY_NAMES } from './scenario-families.js';

export const ScenarioFamilySchema = z.enum(SCENARIO_FAMILY_NAMES);
export type ScenarioFamily = z.infer<typeof ScenarioFamilySchema>;

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
  /** opencode: window − max output − min(20,000, max output), max output capped at 32,000 (policies/opencode.ts). */
  'opencode',
]);
export type TriggerRule = z.infer<typeof TriggerRuleSchema>;

/**
 * Tool-result editing applied to the provider-facing copy after the pruning (policies/*.ts).
 * Each kind carries only its own parameters; defaults and sources in README.md.
 */
export const ToolResultEditingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  /** Keep the last `keepToolResults` tool results verbatim, older ones become a placeholder (replay.md §7). */
  z.object({ kind: z.literal('observation-masking'), keepToolResults: z.number().int().nonnegative() }),
  /** Anthropic context editing `clear_tool_uses_20250919`. */
  z.object({
    kind: z.literal('clear-tool-uses'),
    triggerTokens: z.number().int().positive(),
    keepToolUses: z.number().int().nonnegative(),
    clearAtLeastTokens: z.number().int().nonnegative(),
    excludeTools: z.array(z.string().min(1)),
  }),
  /** opencode's `prune()`: old tool outputs beyond a protected budget of recent ones. */
  z.object({
    kind: z.literal('opencode-prune'),
    protectTokens: z.number().int().nonnegative(),
    minimumTokens: z.number().int().nonnegative(),
    protectedTools: z.array(z.string().min(1)),
  }),
]);
export type ToolResultEditing = z.infer<typeof ToolResultEditingSchema>;

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
  editing: ToolResultEditingSchema,
});
export type ScenarioParams = z.infer<typeof ScenarioParamsSchema>;

export const ScenarioSchema = z.object({
  name: z.string().min(1),
  family: ScenarioFamilySchema,
  params: ScenarioParamsSchema,
});
export type Scenario = z.infer<typeof ScenarioSchema>;
