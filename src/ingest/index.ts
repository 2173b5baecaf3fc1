/**
 * Ingest entry: find sessions under paths and load them into the normalized model, one at a time
 * (a caller that summarizes can drop each session before loading the next). One folder per log
 * format; FreeCode is the first. Adding a format = a discover + a load in its folder and a case here.
 */
import type { IngestIssue, Session } from '../session/model.js';
import { discoverFreecode, type FreecodeSessionFiles, loadFreecodeSession } from './freecode/index.js';
import type { ContentMode } from './content-mode.js';

export type { ContentMode } from './content-mode.js';

/** A session found on disk, not yet read. */
export type SessionSource = { readonly format: 'freecode'; readonly sessionId: string; readonly files: FreecodeSessionFiles };

export type IngestOptions = { readonly content: ContentMode };

/** Finds every session under `paths`; missing paths throw `CachecostError('PATH_NOT_FOUND')`. */
export async function discoverSessions(paths: readonly string[]): Promise<{ readonly sources: readonly SessionSource[]; readonly issues: readonly IngestIssue[] }> {
  const freecode = await discoverFreecode(paths);
  return {
    sources: freecode.sessions.map((files) => ({ format: 'freecode', sessionId: files.sessionId, files })),
    issues: freecode.issues,
  };
}

/** Reads one session; bad content becomes the session's ingest issues, never an exception. */
export async function loadSession(source: SessionSource, options: IngestOptions): Promise<Session> {
  switch (source.format) {
    case 'freecode':
      return loadFreecodeSession(source.files, options);
    default: {
      const unreachable: never = source.format;
      throw new Error(`unknown format ${String(unreachable)}`);
    }
  }
}
