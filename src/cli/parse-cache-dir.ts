/**
 * Where the parsed-line cache lives (the environment is read here, in the CLI, and passed down):
 * `$CACHECOST_CACHE_DIR`, else `$XDG_CACHE_HOME/cachecost`, else `~/.cache/cachecost` (the XDG
 * base directory default). `--no-cache` bypasses it; a cache that cannot be created is skipped, with a warning.
 */
import { openRunParseCache, type ParseCache } from '../usecases/parse-cache.js';
import { cacheRoot } from './cache-root.js';
import type { CliIo } from './io.js';

/** The cache directory, and a directory that must already exist (the home, for the default location). */
export function parseCacheDir(io: CliIo): { readonly dir: string; readonly mustExist: string | null } {
  return cacheRoot(io.env, io.homeDir);
}

/**
 * The cache a command uses: null with `--no-cache` or when the directory cannot be used, which a
 * warning on stderr says (the run is right without it, only slower: every log is read again). No
 * warning where the default location's home does not exist (a service account without one).
 */
export async function openCliParseCache(io: CliIo, enabled: boolean): Promise<ParseCache | null> {
  if (!enabled) return null;
  const { dir, mustExist } = parseCacheDir(io);
  return openRunParseCache(dir, mustExist, (reason) =>
    io.stderr(
      `cachecost: warning: cannot use the cache directory ${dir} (${reason}); every log is read in full (--no-cache turns the cache and this warning off)\n`,
    ),
  );
}
