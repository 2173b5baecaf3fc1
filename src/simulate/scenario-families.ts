/**
 * The scenario family names alone, without the zod schemas of `scenario.ts`: command registration
 * needs them for `--scenario` choices, and must not load zod to print `--help`.
 */
export const SCENARIO_FAMILY_NAMES = ['recorded', 'freecode', 'window-only', 'claude-code', 'codex', 'none'] as const;
