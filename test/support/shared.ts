/**
 * The one rule for tests that read `../shared` (the real public logs, read in place, never copied
 * into the repository). CI always has it, so with `CI=true` such a test runs, and fails with a
 * clear message when the folder is missing; elsewhere (a clone without `../shared`) it is skipped
 * and the reason is printed, never skipped silently.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';

/** `../shared` beside the repository. */
export const SHARED_DIR = resolve(import.meta.dirname, '..', '..', '..', 'shared');
export const REAL_LOGS = join(SHARED_DIR, 'real-logs');

const inCi = (): boolean => process.env['CI'] === 'true';

function missingMessage(name: string, path: string): string {
  return `"${name}" needs ${path}, which is missing`;
}

/** `describe` that needs `path` (default `../shared/real-logs`): run, fail in CI when missing, else skip with a printed reason. */
export function describeWithShared(name: string, body: () => void, path: string = REAL_LOGS): void {
  if (existsSync(path)) {
    describe(name, body);
  } else if (inCi()) {
    describe(name, () => {
      it(`has ${path}`, () => {
        throw new Error(`${missingMessage(name, path)} and CI=true: CI must provide ../shared`);
      });
    });
  } else {
    console.warn(`skipped: ${missingMessage(name, path)} (with CI=true this is a failure)`);
    // The body is not run: it may read the missing folder while its tests are collected.
    describe(name, () => {
      it.skip(`needs ${path}`, () => undefined);
    });
  }
}
