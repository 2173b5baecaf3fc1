/** The largest sweep `tune` accepts (kept apart from `grid.ts` so the CLI can check it without loading the scenarios). */
export const MAX_SWEEP_SCENARIOS = 5_000;

/**
 * Threads a sweep uses unless told: one per core but one, at least one (then it runs in the calling
 * thread). Each worker is an isolate that compiles the replay again and collects its own garbage
 * on V8's helper threads: with as many workers as cores they outnumber the cores, and on two cores
 * two workers took 30–50 % longer than one thread (bench/README.md, tune19).
 */
export function defaultSweepWorkers(cores: number): number {
  return Math.max(1, cores - 1);
}
