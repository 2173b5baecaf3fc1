/**
 * Finding FreeCode session files (engine.md §4.1, §6.1, §7.1). A path may be a FreeCode home
 * (`~/.freecode`), its `rollout` or `sessions` directory, one session directory, any directory
 * holding such trees (a dataset), or a single file. Files are recognised by name and grouped by
 * session id (the directory they sit in). When a path lies inside a FreeCode home, the session's
 * other files are looked up in that home, so pointing at a store directory still reads its rollout.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { IngestIssue } from '../../session/model.js';
import { CachecostError, errorMessage } from '../../session/errors.js';
import { entryKind } from '../dir-entry.js';

/** The files of one FreeCode session; any of them may be missing. */
export type FreecodeSessionFiles = {
  readonly sessionId: string;
  readonly rolloutFile: string | null;
  readonly messagesFile: string | null;
  readonly metaFile: string | null;
  /** The `<projectDir>` the store directory sits in (§7.1). */
  readonly projectDir: string | null;
  readonly memoryFile: string | null;
};

export type Discovery = { readonly sessions: readonly FreecodeSessionFiles[]; readonly issues: readonly IngestIssue[] };

type FileKind = 'rollout' | 'messages' | 'meta' | 'memory';

const FILE_KINDS: ReadonlyMap<string, FileKind> = new Map([
  ['events.jsonl', 'rollout'],
  ['messages.jsonl', 'messages'],
  ['meta.json', 'meta'],
  ['memory.json', 'memory'],
]);

/**
 * Directories never searched: hidden ones below the starting path, dependencies, and the parts of
 * a FreeCode home that are not session logs (`projects/<p>/memory` is the persistent memory
 * store, unrelated to compaction memory, §4.1; `cache` holds models.dev data).
 */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', 'projects', 'cache']);
const MAX_DEPTH = 8;

type MutableFiles = { -readonly [K in keyof FreecodeSessionFiles]: FreecodeSessionFiles[K] };

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'ENOTDIR')
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

class Collector {
  readonly sessions = new Map<string, MutableFiles>();
  readonly issues: IngestIssue[] = [];
  /** Real paths of the directories walked: a symbolic link back to one of them is not followed again. */
  readonly visitedDirs = new Set<string>();
  private readonly seenFiles = new Set<string>();

  add(kind: FileKind, path: string): void {
    const absolute = resolve(path);
    if (this.seenFiles.has(absolute)) return;
    this.seenFiles.add(absolute);
    const dir = dirname(path);
    const sessionId = basename(dir);
    const files = this.sessions.get(sessionId) ?? {
      sessionId,
      rolloutFile: null,
      messagesFile: null,
      metaFile: null,
      projectDir: null,
      memoryFile: null,
    };
    this.sessions.set(sessionId, files);
    const field =
      kind === 'rollout'
        ? 'rolloutFile'
        : kind === 'messages'
          ? 'messagesFile'
          : kind === 'meta'
            ? 'metaFile'
            : 'memoryFile';
    const previous = files[field];
    if (previous !== null) {
      this.issues.push({
        file: path,
        line: 0,
        reason: `another ${basename(path)} for session ${sessionId} was already found (${previous}); this one is not read`,
      });
      return;
    }
    files[field] = path;
    if (kind === 'messages' || kind === 'meta') files.projectDir ??= basename(dirname(dir));
  }
}

async function walk(dir: string, depth: number, collector: Collector): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    collector.issues.push({ file: dir, line: 0, reason: `cannot list directory: ${errorMessage(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const kind = FILE_KINDS.get(entry.name);
    const enterable = depth < MAX_DEPTH && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name);
    if (kind === undefined && !(enterable && (entry.isDirectory() || entry.isSymbolicLink()))) continue;
    // Symbolic links are followed (a linked session folder is read); a directory is entered once by its real path.
    const found = await entryKind(path, entry);
    if (found.kind === 'file') {
      if (kind !== undefined) collector.add(kind, path);
    } else if (found.kind === 'directory') {
      if (enterable && !collector.visitedDirs.has(found.realPath)) {
        collector.visitedDirs.add(found.realPath);
        await walk(path, depth + 1, collector);
      }
    } else if (kind !== undefined) {
      collector.issues.push({ file: path, line: 0, reason: found.reason });
    }
  }
}

/** The FreeCode home a recognised file sits in, from its position (§4.1, §6.1, §7.1); null when it is elsewhere. */
function homeOf(kind: FileKind, path: string): string | null {
  const sessionDir = dirname(path);
  const parent = dirname(sessionDir);
  switch (kind) {
    case 'rollout':
      return basename(parent) === 'sessions' && basename(dirname(parent)) === 'rollout'
        ? dirname(dirname(parent))
        : null;
    case 'messages':
    case 'meta':
      return basename(dirname(parent)) === 'sessions' ? dirname(dirname(parent)) : null;
    case 'memory':
      return basename(parent) === 'memory' ? dirname(parent) : null;
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

async function addCompanions(
  files: MutableFiles,
  collector: Collector,
  projectDirsByHome: Map<string, string[]>,
): Promise<void> {
  // The two store files live side by side wherever the store directory is.
  if (files.messagesFile !== null && files.metaFile === null) {
    const meta = join(dirname(files.messagesFile), 'meta.json');
    if (await exists(meta)) collector.add('meta', meta);
  } else if (files.metaFile !== null && files.messagesFile === null) {
    const messages = join(dirname(files.metaFile), 'messages.jsonl');
    if (await exists(messages)) collector.add('messages', messages);
  }
  const known: [FileKind, string | null][] = [
    ['rollout', files.rolloutFile],
    ['messages', files.messagesFile],
    ['meta', files.metaFile],
    ['memory', files.memoryFile],
  ];
  const home = known.map(([kind, path]) => (path === null ? null : homeOf(kind, path))).find((h) => h !== null);
  if (home === undefined || home === null) return;
  const id = files.sessionId;
  const rollout = join(home, 'rollout', 'sessions', id, 'events.jsonl');
  if (files.rolloutFile === null && (await exists(rollout))) collector.add('rollout', rollout);
  const memory = join(home, 'memory', id, 'memory.json');
  if (files.memoryFile === null && (await exists(memory))) collector.add('memory', memory);
  if (files.messagesFile === null && files.metaFile === null) {
    let projects = projectDirsByHome.get(home);
    if (projects === undefined) {
      try {
        const entries = await readdir(join(home, 'sessions'), { withFileTypes: true });
        projects = entries
          .filter((e) => e.isDirectory())
          .map((e) => e.name)
          .sort();
      } catch {
        projects = [];
      }
      projectDirsByHome.set(home, projects);
    }
    for (const project of projects) {
      const messages = join(home, 'sessions', project, id, 'messages.jsonl');
      const meta = join(home, 'sessions', project, id, 'meta.json');
      if (await exists(messages)) collector.add('messages', messages);
      if (await exists(meta)) collector.add('meta', meta);
      if (files.messagesFile !== null || files.metaFile !== null) break;
    }
  }
}

/**
 * Finds the FreeCode sessions under `paths`, sorted by session id. A path that does not exist is
 * an operational error (`PATH_NOT_FOUND`); a file that is not a FreeCode log is a `BAD_ARGUMENT`.
 */
export async function discoverFreecode(paths: readonly string[]): Promise<Discovery> {
  const collector = new Collector();
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (error) {
      if (isMissing(error))
        throw new CachecostError('PATH_NOT_FOUND', `no such file or directory: ${path}`, { cause: error });
      throw new CachecostError('IO_ERROR', `cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
    if (isDirectory) {
      collector.visitedDirs.add(await realpath(path));
      await walk(path, 0, collector);
    } else {
      const kind = FILE_KINDS.get(basename(path));
      if (kind === undefined) {
        throw new CachecostError(
          'BAD_ARGUMENT',
          `not a FreeCode log file: ${path} (expected events.jsonl, messages.jsonl, meta.json or memory.json)`,
        );
      }
      collector.add(kind, path);
    }
  }
  const projectDirsByHome = new Map<string, string[]>();
  for (const files of collector.sessions.values()) await addCompanions(files, collector, projectDirsByHome);

  const sessions: FreecodeSessionFiles[] = [];
  for (const files of [...collector.sessions.values()].sort((a, b) =>
    a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0,
  )) {
    if (files.rolloutFile === null && files.messagesFile === null && files.metaFile === null) {
      // Compaction memory alone has no requests to count: say so rather than drop it silently.
      collector.issues.push({
        file: files.memoryFile ?? files.sessionId,
        line: 0,
        reason: `memory.json without a rollout log or session store for session ${files.sessionId}; skipped`,
      });
      continue;
    }
    sessions.push({ ...files });
  }
  return { sessions, issues: collector.issues };
}
