/**
 * The scenario family names alone, without the zod schemas of `scenario.ts`: command registration
 * needs them for `--scenario` choices, and must not load zod to print `--help`.
 */
export const SCENARIO_FAMILY_NAMES = [
  'recorded',
  'freecode',
  'window-only',
  'claude-code',
  'codex',
  'none',
  // The context policies of the field (simulate/README.md "Policies of the field"): tool-result
  // editing on top of the agent's own compaction, opencode's policy, FreeCode combined with editing.
  'observation-masking',
  'clear-tool-uses',
  'opencode',
  'freecode+observation-masking',
  'freecode+clear-tool-uses',
] as const;
