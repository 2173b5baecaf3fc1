/** The largest sweep `tune` accepts (kept apart from `grid.ts` so the CLI can check it without loading the scenarios). */
export const MAX_SWEEP_SCENARIOS = 5_000;
