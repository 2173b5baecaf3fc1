/**
 * Where logs are read from when no path is given: every default location of every
 * format that exists on this machine — the FreeCode home (`$FREECODE_HOME`, else `~/.freecode`,
 * engine.md §7.1), Claude Code's `projects` under each `CLAUDE_CONFIG_DIR` entry (a comma list)
 * or else `~/.claude` and `~/.config/claude`, Codex's `sessions` and `archived_sessions` under
 * `$CODEX_HOME` (default `~/.codex`), and opencode's `storage` under `$XDG_DATA_HOME/opencode`
 * (default `~/.local/share/opencode`) (formats.md §1.1, §2.1, §3.1). The environment is read
 * here, in the CLI, and passed down as paths.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CachecostError } from '../session/errors.js';
import type { CliIo } from './io.js';

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/** Every default location, whether or not it exists, FreeCode's first. */
export function defaultLocations(io: CliIo): readonly string[] {
  const env = io.env;
  const home = io.homeDir;
  const claudeDirs = nonEmpty(env['CLAUDE_CONFIG_DIR'])
    ?.split(',')
    .map((dir) => dir.trim())
    .filter((dir) => dir !== '') ?? [join(home, '.claude'), join(home, '.config', 'claude')];
  const codexHome = nonEmpty(env['CODEX_HOME']) ?? join(home, '.codex');
  const dataHome = nonEmpty(env['XDG_DATA_HOME']) ?? join(home, '.local', 'share');
  return [
    nonEmpty(env['FREECODE_HOME']) ?? join(home, '.freecode'),
    ...claudeDirs.map((dir) => join(dir, 'projects')),
    join(codexHome, 'sessions'),
    join(codexHome, 'archived_sessions'),
    join(dataHome, 'opencode', 'storage'),
  ];
}

/**
 * The paths a command reads: the ones given, or the default locations that exist. When none
 * exists the error names every place searched, so the user sees where logs were looked for.
 */
export function pathsOrDefault(
  paths: readonly string[] | undefined,
  io: CliIo,
  exists: (path: string) => boolean = existsSync,
): readonly string[] {
  if (paths !== undefined && paths.length > 0) return paths;
  const locations = defaultLocations(io);
  const present = locations.filter((path) => exists(path));
  if (present.length > 0) return present;
  throw new CachecostError(
    'PATH_NOT_FOUND',
    `no logs found: none of the default locations exists (${locations.join(', ')}); give a path`,
  );
}
