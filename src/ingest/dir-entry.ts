/**
 * What a directory entry is, once symbolic links are followed: a regular file, a directory (with
 * its real path, so a walk can refuse to enter the same directory twice and never loops on a
 * link to an ancestor), or something a log reader must not open (a FIFO would block forever
 * with no writer; a socket or device is not a log). Shared by both directory walks.
 */
import type { Dirent } from 'node:fs';
import { realpathSync, statSync } from 'node:fs';

export type EntryKind =
  | { readonly kind: 'file' }
  | { readonly kind: 'directory'; readonly realPath: string }
  | { readonly kind: 'other'; readonly reason: string };

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Classifies `entry` (found in a directory listing as `path`), following a symbolic link. */
export function entryKind(path: string, entry: Dirent): Promise<EntryKind> {
  return Promise.resolve(entryKindSync(path, entry));
}

/**
 * `entryKind`, synchronously: a walk over hundreds of directories spends more in scheduling
 * asynchronous calls than in the calls themselves (a realpath or stat is microseconds).
 */
export function entryKindSync(path: string, entry: Dirent): EntryKind {
  if (entry.isFile()) return { kind: 'file' };
  if (entry.isDirectory()) {
    try {
      return { kind: 'directory', realPath: realpathSync.native(path) };
    } catch (error) {
      return { kind: 'other', reason: `cannot resolve directory: ${message(error)}` };
    }
  }
  if (!entry.isSymbolicLink())
    return { kind: 'other', reason: 'not a regular file (a FIFO, socket or device); skipped' };
  try {
    const target = statSync(path);
    if (target.isFile()) return { kind: 'file' };
    if (target.isDirectory()) return { kind: 'directory', realPath: realpathSync.native(path) };
    return {
      kind: 'other',
      reason: 'symbolic link to something that is not a regular file (a FIFO, socket or device); skipped',
    };
  } catch (error) {
    return { kind: 'other', reason: `broken symbolic link; skipped (${message(error)})` };
  }
}

/** A one-line refusal for a path given on the command line that is neither a regular file nor a directory. */
export function notRegularReason(stats: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe), not a log file';
  if (stats.isSocket()) return 'a socket, not a log file';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device, not a log file';
  return 'not a regular file or directory';
}
