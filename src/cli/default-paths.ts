/**
 * Where logs are read from when no path is given: `$FREECODE_HOME`, else `~/.freecode`
 * (engine.md §7.1). The environment is read here, in the CLI, and passed down as a path.
 */
import { join } from 'node:path';
import type { CliIo } from './io.js';

/** The paths a command reads: the ones given, or the FreeCode home when none are. */
export function pathsOrDefault(paths: readonly string[] | undefined, io: CliIo): readonly string[] {
  if (paths !== undefined && paths.length > 0) return paths;
  const home = io.env['FREECODE_HOME'];
  return [home !== undefined && home !== '' ? home : join(io.homeDir, '.freecode')];
}
