/**
 * A worker thread's entry module, for the pools that start one (Claude Code parse workers, the
 * tune sweep). The entry is the compiled module beside its caller (`dist/…`, or the bundle's
 * rewrite of it); a caller running from its TypeScript source (a test runner) has none.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The worker's entry module and the Node options to start it with. */
export type WorkerScript = { readonly url: URL; readonly execArgv: readonly string[] };

/** The compiled worker at `url` (resolved by the caller against its own `import.meta.url`), or null when it is not there. */
export function compiledWorker(url: URL): WorkerScript | null {
  return existsSync(fileURLToPath(url)) ? { url, execArgv: [] } : null;
}
