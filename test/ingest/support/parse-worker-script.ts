/** Parse workers run from their TypeScript sources, for tests that start real worker threads. */
import type { WorkerScript } from '../../../src/ingest/worker-script.js';

const hooks = ['--import', new URL('../../tune/support/register-ts-worker-hooks.mjs', import.meta.url).href];

/** The production worker (`src/ingest/claude-code/parse-worker.ts`). */
export const SOURCE_PARSE_WORKER: WorkerScript = {
  url: new URL('../../../src/ingest/claude-code/parse-worker.ts', import.meta.url),
  execArgv: hooks,
};

/** A worker that serves jobs as the production one, then dies after posting its second batch. */
export const DYING_PARSE_WORKER: WorkerScript = {
  url: new URL('./dying-parse-worker.ts', import.meta.url),
  execArgv: hooks,
};

/** A worker that builds sessions as the production one, then dies after posting its first. */
export const DYING_BUILD_WORKER: WorkerScript = {
  url: new URL('./dying-build-worker.ts', import.meta.url),
  execArgv: hooks,
};

/** A worker whose every session build fails (and is posted as failed). */
export const FAILING_BUILD_WORKER: WorkerScript = {
  url: new URL('./failing-build-worker.ts', import.meta.url),
  execArgv: hooks,
};
