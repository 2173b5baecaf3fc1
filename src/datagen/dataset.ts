/**
 * `datasets/freecode`: writes the seven scenario sessions into a FreeCode home, each from the
 * first attempt (simulation seed) whose figures meet its expectations, so the output is exactly
 * determined by the seed and the code.
 */
import { unmetExpectations } from './expectations.js';
import { removeSession, resetHome, writeSession } from './home-writer.js';
import { DATASET_SEED, datasetScenarios, planForAttempt } from './scenarios.js';
import type { SessionReport } from './simulator.js';

export const MAX_ATTEMPTS = 40;

export interface DatasetSession {
  readonly report: SessionReport;
  /** Which simulation seed was kept (0 = the scenario's own). */
  readonly attempt: number;
  readonly bytes: number;
  readonly files: readonly string[];
}

/** Wipes `outDir` (a FreeCode home, see `resetHome`) and writes the dataset into it. */
export function writeDataset(outDir: string, seed: number = DATASET_SEED): DatasetSession[] {
  resetHome(outDir);
  const written: DatasetSession[] = [];
  for (const scenario of datasetScenarios(seed)) {
    let misses: string[] = [];
    let done = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !done; attempt++) {
      const session = writeSession(outDir, planForAttempt(scenario.plan, attempt));
      misses = unmetExpectations(session.report, scenario.expect);
      if (misses.length === 0) {
        written.push({ report: session.report, attempt, bytes: session.bytes, files: session.files });
        done = true;
      } else {
        removeSession(session);
      }
    }
    if (!done) throw new Error(`${scenario.plan.name}: no attempt met the expectations (last: ${misses.join('; ')})`);
  }
  return written;
}
