/**
 * FreeCode's project directory names (engine.md §7.1, `formatSessionDirName`): path segments
 * joined with `__`, `-` escaped as `_h_`. Used only when `meta.json` has no `projectPath`.
 */

/** Inverse of `formatSessionDirName` as FreeCode's `parseSessionDirName` does it (Windows paths do not round-trip). */
export function projectPathFromDirName(dirName: string): string {
  return `/${dirName
    .split('__')
    .map((segment) => segment.replaceAll('_h_', '-'))
    .join('/')}`;
}
