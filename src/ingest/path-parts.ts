/**
 * `basename`, `dirname` and `join` for the paths a directory walk builds, without `node:path`'s
 * character-by-character loops: discovery runs once per command, in the interpreter, where those
 * loops over 576 paths cost ~10 ms of a re-run. Each falls back to `node:path` wherever its
 * shortcut could differ (a path ending in a separator or with a doubled one, with a separator only
 * at its start or none, a platform whose paths have two separators).
 */
import { basename, dirname, sep } from 'node:path';

const POSIX = sep === '/';

/** `basename(path)`. */
export function baseName(path: string): string {
  const at = POSIX ? path.lastIndexOf('/') : -1;
  return at === -1 || at === path.length - 1 ? basename(path) : path.slice(at + 1);
}

/** `dirname(path)`. */
export function dirName(path: string): string {
  const at = POSIX ? path.lastIndexOf('/') : -1;
  return at <= 0 || at === path.length - 1 || path[at - 1] === '/' ? dirname(path) : path.slice(0, at);
}

/**
 * What `join(dir, name)` is for every `name` of `dir`'s listing (no separator, not `.` or `..`):
 * this prefix followed by the name; null where `join` would normalize `dir` (then call it).
 */
export function childPrefix(dir: string): string | null {
  const normal =
    POSIX && dir !== '' && dir !== '.' && !dir.endsWith('/') && !dir.includes('//') && !/(^|\/)\.\.?(\/|$)/.test(dir);
  return normal ? `${dir}/` : null;
}

/**
 * The real path of the directory `name` listed in the directory whose real path is `dirReal`, when
 * the listing says it is a directory (not a symbolic link): `realpath` resolves links only, so it
 * is `dirReal` and the name, with no call (a walk resolved each directory: each `realpath` walks
 * every component of the path). Null where the platform's paths are not POSIX ones (then ask `realpath`).
 */
export function realChild(dirReal: string, name: string): string | null {
  if (!POSIX || dirReal === '') return null;
  return dirReal.endsWith('/') ? dirReal + name : `${dirReal}/${name}`;
}
