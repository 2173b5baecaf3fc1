/**
 * Walking the given paths for the log files of every format but FreeCode (which has its own
 * discovery): each candidate file is classified by `detectFormat`. Directories that hold no
 * transcripts are not entered (dependencies, git objects, Claude Code's file history, opencode's
 * per-message and per-part folders, which are read through their session file). Symbolic links
 * are followed; a directory already walked (by its real path) is not entered again, so a link to
 * an ancestor cannot loop. A candidate that is not a regular file, or whose content is binary,
 * is an ingest issue rather than a silent skip.
 */
import { errorMessage } from '../session/errors.js';
import type { Dirent } from 'node:fs';
import { readdirSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { IngestIssue } from '../session/model.js';
import { type Detection, detectFormat } from './detect-format.js';
import { type EntryKind, entryKindSync } from './dir-entry.js';
import { baseName, childPrefix, realChild } from './path-parts.js';
import type { RunPack } from './run-pack.js';

export type FoundLog = Detection & { readonly path: string };

const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  'file-history',
  'tool-results',
  'todos',
  'shell-snapshots',
  'debug',
  'statsig',
]);
const OPENCODE_BULK_DIRS: ReadonlySet<string> = new Set([
  'message',
  'part',
  'session_diff',
  'project',
  'migration',
  'snapshot',
]);
const CANDIDATE = /\.(jsonl|json|traj)$/;
const MAX_DEPTH = 10;

function skipDir(dir: string, name: string): boolean {
  if (SKIPPED_DIRS.has(name)) return true;
  return baseName(dir) === 'storage' && OPENCODE_BULK_DIRS.has(name);
}

type WalkState = {
  readonly found: FoundLog[];
  readonly issues: IngestIssue[];
  readonly visited: Set<string>;
  readonly pack: RunPack | null;
  /** Called with each log as it is found (`walkLogs`). */
  readonly onFound: ((log: FoundLog) => void) | null;
};

/**
 * Lists and classifies synchronously (see `entryKindSync`); only a file that must be read is
 * awaited. `real`: the directory's real path (null: unknown, then each subdirectory is resolved).
 */
async function walk(dir: string, depth: number, state: WalkState, real: string | null): Promise<void> {
  const { issues } = state;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    issues.push({ file: dir, line: 0, reason: `cannot list directory: ${errorMessage(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const prefix = childPrefix(dir);
  for (const entry of entries) {
    const path = prefix === null ? join(dir, entry.name) : prefix + entry.name;
    const candidate = CANDIDATE.test(entry.name);
    if (!entry.isDirectory() && !entry.isSymbolicLink() && !candidate) continue;
    // A directory (not a link to one) of a resolved directory: its real path follows from the parent's.
    const derived = real !== null && entry.isDirectory() ? realChild(real, entry.name) : null;
    const kind: EntryKind = derived !== null ? { kind: 'directory', realPath: derived } : entryKindSync(path, entry);
    if (kind.kind === 'directory') {
      if (depth < MAX_DEPTH && !skipDir(dir, entry.name) && !state.visited.has(kind.realPath)) {
        state.visited.add(kind.realPath);
        await walk(path, depth + 1, state, kind.realPath);
      }
    } else if (candidate) {
      if (kind.kind === 'file') {
        const pending = classify(path, state);
        if (pending !== null) await pending;
      } else issues.push({ file: path, line: 0, reason: kind.reason });
    }
  }
}

const BINARY_PROBE_BYTES = 8192;

/**
 * What the start of a file no format claimed says about it: binary (a NUL byte, or bytes that are
 * not UTF-8), or text with no JSON object on any of its first lines. A log name on such a file is
 * reported, not passed over as "some other JSON file" (which is valid JSON of another shape).
 */
async function probe(path: string): Promise<{ readonly binary: boolean; readonly noJsonObject: boolean }> {
  const handle = await open(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(BINARY_PROBE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_PROBE_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.includes(0)) return { binary: true, noJsonObject: true };
  let text: string;
  try {
    // `stream`: a multi-byte character cut at the probe's end is not an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length === BINARY_PROBE_BYTES });
  } catch {
    return { binary: true, noJsonObject: true };
  }
  const lines = text.split('\n');
  // Only whole lines are judged: a long first line cut by the probe proves nothing.
  const whole = head.length === BINARY_PROBE_BYTES ? lines.slice(0, -1) : lines;
  const nonBlank = whole.filter((line) => line.trim() !== '').slice(0, 8);
  const isObject = (line: string): boolean => {
    try {
      const value: unknown = JSON.parse(line.replace(/^\uFEFF/, ''));
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  };
  return { binary: false, noJsonObject: nonBlank.length > 0 && !nonBlank.some(isObject) };
}

/** What the walk makes of one candidate file: a log of some format, a reported non-log, or nothing. */
type Classified = { readonly detection: Detection | null; readonly issue: string | null };

async function classifyFile(path: string): Promise<Classified> {
  const detection = await detectFormat(path);
  if (detection !== null) return { detection, issue: null };
  const head = await probe(path);
  if (head.binary) return { detection, issue: 'binary content (not UTF-8 text) in a file named like a log; not read' };
  if (path.endsWith('.jsonl') && head.noJsonObject)
    return { detection, issue: 'none of its first lines is a JSON object; not read as a log' };
  return { detection, issue: null };
}

/** A first line longer than this is not kept in the run pack: the file's head is read again instead. */
const MAX_CACHED_HEAD_CHARS = 16_384;

/**
 * `classifyFile` through the run pack: an unchanged file's outcome is the recorded one, used at
 * once (null: nothing to wait for); otherwise the file is read. A file that cannot be read is an
 * issue each time, never recorded.
 */
function classify(path: string, state: WalkState): Promise<void> | null {
  const cached = state.pack?.outcome(path);
  if (cached?.value !== undefined) {
    use(path, cached.value as Classified, state);
    return null;
  }
  return classifyFile(path).then(
    (classified) => {
      const head = classified.detection?.head ?? null;
      if (
        state.pack !== null &&
        cached !== undefined &&
        (head === null || JSON.stringify(head).length <= MAX_CACHED_HEAD_CHARS)
      )
        state.pack.recordOutcome(path, cached.stamp, classified);
      use(path, classified, state);
    },
    (error: unknown) => {
      state.issues.push({ file: path, line: 0, reason: `cannot read: ${errorMessage(error)}` });
    },
  );
}

function use(path: string, { detection, issue }: Classified, state: WalkState): void {
  if (detection !== null && detection.format !== 'freecode') {
    const log = { ...detection, path };
    state.found.push(log);
    state.onFound?.(log);
  } else if (issue !== null) state.issues.push({ file: path, line: 0, reason: issue });
}

/**
 * The format of a file given by name (or found beside one) through the run pack, as `detectFormat`;
 * only a detected format is recorded (a walk records what it makes of the others).
 */
export async function detectFormatCached(path: string, pack: RunPack | null): Promise<Detection | null> {
  const cached = pack?.outcome(path);
  const classified = cached?.value as Classified | undefined;
  if (classified !== undefined && classified.detection !== null) return classified.detection;
  const detection = await detectFormat(path);
  const head = detection?.head ?? null;
  if (
    pack !== null &&
    cached !== undefined &&
    detection !== null &&
    (head === null || JSON.stringify(head).length <= MAX_CACHED_HEAD_CHARS)
  )
    pack.recordOutcome(path, cached.stamp, { detection, issue: null } satisfies Classified);
  return detection;
}

/**
 * Every non-FreeCode log file under the directory `dir`, in path order. With a run `pack`, a file
 * unchanged since the pack was written is classified as it was then, without reading it.
 * `onFound` is called with each as it is found (in no set order), while the walk goes on.
 */
export async function walkLogs(
  dir: string,
  pack: RunPack | null = null,
  onFound: ((log: FoundLog) => void) | null = null,
): Promise<{ readonly found: readonly FoundLog[]; readonly issues: readonly IngestIssue[] }> {
  const state: WalkState = { found: [], issues: [], visited: new Set(), pack, onFound };
  let real: string | null = null;
  try {
    real = realpathSync.native(dir);
    state.visited.add(real);
  } catch {
    // An unresolvable root is reported by readdir in walk().
  }
  await walk(dir, 0, state, real);
  return { found: state.found, issues: state.issues };
}
