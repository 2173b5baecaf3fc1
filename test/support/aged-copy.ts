/** Test helper: a copy of a fixture directory whose files all have one old mtime (logs a cache trusts: not racy). */
import { cpSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

export function agedCopy(fixture: string, dir: string, mtime: Date): string {
  cpSync(fixture, dir, { recursive: true });
  const touch = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) touch(child);
      else utimesSync(child, mtime, mtime);
    }
  };
  touch(dir);
  return dir;
}
