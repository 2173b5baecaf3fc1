/**
 * Ingest entry: find sessions under paths and load them into the normalized model, one at a time
 * (a caller that summarizes can drop each session before loading the next). One folder per log
 * format; the format is detected per file (`detect-format.ts`) and directories are searched for
 * every format. Adding a format = a discover + a load in its folder and a case here.
 */
import { stat } from 'node:fs/promises';
import { CachecostError, errorMessage } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';
import {
  claudeCompanionFiles,
  type ClaudeSessionFiles,
  groupClaudeFiles,
  loadClaudeSession,
  type ResponseClaims,
} from './claude-code/index.js';
import { type CodexSessionFiles, groupCodexFiles } from './codex/discover.js';
import type { ContentMode } from './content-mode.js';
import { notRegularReason } from './dir-entry.js';
import type { ParseCache } from './parse-cache.js';
import { RunPack } from './run-pack.js';
import { discoverFreecode, type FreecodeSessionFiles } from './freecode/discover.js';
import { type OpencodeSessionFiles, groupOpencodeFiles } from './opencode/discover.js';
import { type OpenhandsSessionFiles, groupOpenhandsFiles } from './openhands/discover.js';
import { type SweAgentSessionFiles, groupSweAgentFiles } from './swe-agent/discover.js';
import { detectFormatCached, type FoundLog, walkLogs } from './walk-logs.js';

export type { ContentMode } from './content-mode.js';
export { openParseCache, type ParseCache } from './parse-cache.js';
export type { RunPack } from './run-pack.js';

/** A session found on disk, not yet read (plain data: it is sent to worker threads). */
export type SessionSource =
  | { readonly format: 'freecode'; readonly sessionId: string; readonly files: FreecodeSessionFiles }
  | { readonly format: 'claude-code'; readonly sessionId: string; readonly files: ClaudeSessionFiles }
  | { readonly format: 'codex'; readonly sessionId: string; readonly files: CodexSessionFiles }
  | { readonly format: 'opencode'; readonly sessionId: string; readonly files: OpencodeSessionFiles }
  | { readonly format: 'openhands'; readonly sessionId: string; readonly files: OpenhandsSessionFiles }
  | { readonly format: 'swe-agent'; readonly sessionId: string; readonly files: SweAgentSessionFiles };

export type IngestOptions = {
  readonly content: ContentMode;
  /** The parsed-line cache (`parse-cache.ts`); absent or null = parse every line. Used in `sizes` mode. */
  readonly cache?: ParseCache | null;
  /**
   * Shared by the sessions of one run (`newIngestRun`): a response a session loaded earlier already
   * counted is not counted again (Claude Code resumed copies, formats.md §1.5). Without it each
   * session is read on its own.
   */
  readonly run?: IngestRun;
  /**
   * The run pack of the paths being read (`openRunPack`): sessions unchanged since it was written
   * are served from it. Used in `sizes` and `usage` modes.
   */
  readonly pack?: RunPack | null;
  /**
   * Whether the caller reads the sessions' items (default true). The bill does not: sessions served
   * from the run pack then leave their items on disk (`run-pack.ts`).
   */
  readonly readsItems?: boolean;
};

/** State shared by the sessions of one run, loaded one after another. */
export type IngestRun = { readonly claudeClaims: ResponseClaims };

/** A fresh run: load its sessions in discovery order so that the first claim is deterministic. */
export function newIngestRun(): IngestRun {
  return { claudeClaims: new Map() };
}

/**
 * The run pack of a run over `paths` in `content` mode (`run-pack.ts`), or null when there is no
 * cache or the mode is `text` (the pack would store the logs' content). Save it when the run ends.
 */
export function openRunPack(
  cache: ParseCache | null,
  content: ContentMode,
  paths: readonly string[],
  options: { readonly readsItems: boolean } = { readsItems: true },
): RunPack | null {
  return cache === null || content === 'text' ? null : RunPack.open(cache, content, paths, options);
}

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'ENOTDIR')
  );
}

/**
 * Finds every session under `paths`, FreeCode's first, then each other format's, each sorted by
 * id. A missing path throws `CachecostError('PATH_NOT_FOUND')`; a file given by name that no
 * format claims throws `BAD_ARGUMENT`; inside directories such files are not logs and are passed over.
 */
export async function discoverSessions(
  paths: readonly string[],
  pack: RunPack | null = null,
): Promise<{ readonly sources: readonly SessionSource[]; readonly issues: readonly IngestIssue[] }> {
  const freecodePaths: string[] = [];
  const found: FoundLog[] = [];
  const issues: IngestIssue[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      const stats = await stat(path);
      // Opening a FIFO with no writer blocks forever; a socket or device is no log either.
      if (!stats.isDirectory() && !stats.isFile())
        throw new CachecostError('BAD_ARGUMENT', `cannot read ${path}: ${notRegularReason(stats)}`);
      isDirectory = stats.isDirectory();
    } catch (error) {
      if (error instanceof CachecostError) throw error;
      if (isMissing(error))
        throw new CachecostError('PATH_NOT_FOUND', `no such file or directory: ${path}`, { cause: error });
      throw new CachecostError('IO_ERROR', `cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
    if (isDirectory) {
      freecodePaths.push(path);
      const walked = await walkLogs(path, pack);
      found.push(...walked.found);
      issues.push(...walked.issues);
      continue;
    }
    let detection;
    try {
      detection = await detectFormatCached(path, pack);
    } catch (error) {
      throw new CachecostError('IO_ERROR', `cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
    if (detection === null) {
      throw new CachecostError(
        'BAD_ARGUMENT',
        `not a session log cachecost can read: ${path} (FreeCode, Claude Code, Codex, opencode, OpenHands or SWE-agent)`,
      );
    }
    if (detection.format === 'freecode') freecodePaths.push(path);
    else found.push({ ...detection, path });
    // A Claude Code transcript named alone brings its subagents' files: their requests are billed.
    if (detection.format === 'claude-code') {
      try {
        found.push(...(await claudeCompanionFiles(path, pack)));
      } catch (error) {
        issues.push({ file: path, line: 0, reason: `cannot read its subagent files: ${errorMessage(error)}` });
      }
    }
  }
  const sources: SessionSource[] = [];
  if (freecodePaths.length > 0) {
    const freecode = await discoverFreecode(freecodePaths);
    issues.push(...freecode.issues);
    for (const files of freecode.sessions) sources.push({ format: 'freecode', sessionId: files.sessionId, files });
  }
  const unique = new Map<string, FoundLog>();
  for (const log of found) if (!unique.has(log.path)) unique.set(log.path, log);
  const logs = [...unique.values()];
  const of = (format: FoundLog['format']): FoundLog[] => logs.filter((log) => log.format === format);
  for (const files of groupClaudeFiles(of('claude-code')))
    sources.push({ format: 'claude-code', sessionId: files.sessionId, files });
  const codex = groupCodexFiles(of('codex'));
  issues.push(...codex.issues);
  for (const files of codex.sessions) sources.push({ format: 'codex', sessionId: files.sessionId, files });
  for (const files of groupOpencodeFiles(of('opencode')))
    sources.push({ format: 'opencode', sessionId: files.sessionId, files });
  const openhands = await groupOpenhandsFiles(of('openhands'));
  issues.push(...openhands.issues);
  for (const files of openhands.sessions) sources.push({ format: 'openhands', sessionId: files.sessionId, files });
  for (const files of groupSweAgentFiles(of('swe-agent')))
    sources.push({ format: 'swe-agent', sessionId: files.sessionId, files });
  return { sources, issues };
}

/**
 * Reads one session; bad content becomes the session's ingest issues, never an exception. The
 * adapters other than Claude Code's are loaded on first use: some load zod and their schemas,
 * which a run over Claude Code logs alone never needs.
 */
export async function loadSession(source: SessionSource, options: IngestOptions): Promise<Session> {
  switch (source.format) {
    case 'freecode': {
      const { loadFreecodeSession } = await import('./freecode/index.js');
      return loadFreecodeSession(source.files, options);
    }
    case 'claude-code':
      return loadClaudeSession(source.files, {
        content: options.content,
        claims: options.run?.claudeClaims,
        cache: options.cache ?? null,
        pack: options.pack ?? null,
      });
    case 'codex': {
      const { loadCodexSession } = await import('./codex/index.js');
      return loadCodexSession(source.files, options);
    }
    case 'opencode': {
      const { loadOpencodeSession } = await import('./opencode/index.js');
      return loadOpencodeSession(source.files, options);
    }
    case 'openhands': {
      const { loadOpenhandsSession } = await import('./openhands/index.js');
      return loadOpenhandsSession(source.files, options);
    }
    case 'swe-agent': {
      const { loadSweAgentSession } = await import('./swe-agent/index.js');
      return loadSweAgentSession(source.files, options);
    }
    default: {
      const unreachable: never = source;
      throw new Error(`unknown format ${JSON.stringify(unreachable)}`);
    }
  }
}
