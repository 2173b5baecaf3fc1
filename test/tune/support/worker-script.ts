/** The sweep worker run from its TypeScript source, for tests that start real worker threads. */
import type { WorkerScript } from '../../../src/tune/sweep-pool.js';

export const SOURCE_WORKER_SCRIPT: WorkerScript = {
  url: new URL('../../../src/tune/sweep-worker.ts', import.meta.url),
  execArgv: ['--import', new URL('./register-ts-worker-hooks.mjs', import.meta.url).href],
};
