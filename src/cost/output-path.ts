/**
 * The files cachecost writes (`--db`, `--csv`, `--html`, charts) are replaced atomically: written
 * under a temporary name in the destination's directory, then renamed over it, so a kill leaves
 * the old file or the new one, never a partial one. This module owns the temporary names and what
 * goes with them: a symbolic link as destination is written through (its target is replaced, the
 * link stays), temporary files a killed run left behind are removed by the next write to the same
 * destination, errors name the user's path (never the temporary one), and directory creation is
 * bounded (`fs.mkdir` with `recursive` spins forever on some paths, e.g. under /proc).
 */
import { lstat, mkdir, readdir, readlink, realpath, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

const TEMP_SUFFIX = /^\.(.+)\.(\d+)\.([0-9a-f]{8})\.tmp(?:\.wal)?$/;
const MAX_DIR_DEPTH = 64;

/**
 * The temporary sibling of `target` for this process: `.<name>.<pid>.<8 hex>.tmp`. `node:crypto` is
 * loaded here, on the first write (≈ 5 ms to load: `simulate --json` writes no file and never does).
 */
export function tempPathFor(target: string): string {
  const { randomUUID } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && codes.includes(String(error.code));
}

/**
 * The file a write to `path` must replace: `path` itself, or, when `path` is a symbolic link, the
 * file it points to (followed to the end; a dangling link gives the path it names).
 */
export async function outputTarget(path: string): Promise<string> {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (isCode(error, 'ENOENT', 'ENOTDIR')) return current;
      throw error;
    }
    if (!isLink) return current;
    try {
      return await realpath(current);
    } catch {
      // A dangling link: write the file it names.
      current = resolve(dirname(current), await readlink(current));
    }
  }
  return current;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isCode(error, 'EPERM');
  }
}

/**
 * Removes temporary files of `target` that a killed cachecost run left (its pid is gone). Other
 * files, and those of a run still going, are left alone; a failure to clean is not an error.
 */
export async function removeStaleTemps(target: string): Promise<void> {
  const dir = dirname(target);
  const name = basename(target);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = TEMP_SUFFIX.exec(entry);
    if (match === null || match[1] !== name) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processAlive(pid)) continue;
    await rm(join(dir, entry), { force: true }).catch(() => undefined);
  }
}

/** A one-line reason for a failed write, naming `userPath` where the error named the temporary file. */
export function writeFailure(error: unknown, userPath: string, tempPath: string): string {
  if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return `directory ${dirname(userPath)} does not exist`;
  if (isCode(error, 'EACCES', 'EPERM')) return `permission denied in ${dirname(userPath)}`;
  if (isCode(error, 'EISDIR')) return `${userPath} is a directory`;
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0] ?? message;
  return tempPath === '' ? line : line.split(tempPath).join(userPath);
}

/**
 * Creates `dir` and its missing parents, at most `MAX_DIR_DEPTH` levels, each with a plain
 * `mkdir`: a path that cannot be created fails at once with the reason.
 */
export async function ensureDirectory(dir: string, depth = 0): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (error) {
    if (isCode(error, 'EEXIST')) {
      if ((await stat(dir)).isDirectory()) return;
      throw new Error(`${dir} exists and is not a directory`, { cause: error });
    }
    const parent = dirname(dir);
    if (!isCode(error, 'ENOENT') || depth >= MAX_DIR_DEPTH || parent === dir) throw error;
  }
  await ensureDirectory(dirname(dir), depth + 1);
  await mkdir(dir);
}
