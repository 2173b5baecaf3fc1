/** The package version, read from package.json (two levels up from both src/cli and dist/cli). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const raw: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return typeof raw === 'object' && raw !== null && 'version' in raw && typeof raw.version === 'string'
    ? raw.version
    : 'unknown';
}
