/**
 * The user's cache directory for cachecost: `$CACHECOST_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/cachecost`, else `~/.cache/cachecost` (the XDG base directory default). Apart
 * from the parse cache's opening (`parse-cache-dir.ts`) because the core's loader
 * (`core-loader.ts`) needs it before anything else is loaded.
 */
import { join } from 'node:path';

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/** The cache directory, and a directory that must already exist (the home, for the default location). */
export function cacheRoot(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): { readonly dir: string; readonly mustExist: string | null } {
  const explicit = nonEmpty(env['CACHECOST_CACHE_DIR']);
  if (explicit !== undefined) return { dir: explicit, mustExist: null };
  const xdg = nonEmpty(env['XDG_CACHE_HOME']);
  if (xdg !== undefined) return { dir: join(xdg, 'cachecost'), mustExist: null };
  return { dir: join(homeDir, '.cache', 'cachecost'), mustExist: homeDir };
}
