/**
 * opencode JSON storage as sessions (formats.md §3.1): each
 * `storage/session/<projectID>/<sessionID>.json` is a session; its messages are read from
 * `storage/message/<sessionID>/` and their parts from `storage/part/<messageID>/` when it loads.
 */
import { basename, dirname } from 'node:path';
import type { FoundLog } from '../walk-logs.js';

export type OpencodeSessionFiles = {
  readonly sessionId: string;
  readonly sessionFile: string;
  readonly storageDir: string;
};

/** One session per session file, sorted by id (opencode ids sort by creation time). */
export function groupOpencodeFiles(found: readonly FoundLog[]): OpencodeSessionFiles[] {
  return found
    .map((log) => ({
      sessionId: basename(log.path, '.json'),
      sessionFile: log.path,
      storageDir: dirname(dirname(dirname(log.path))),
    }))
    .sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
}
