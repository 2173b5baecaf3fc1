/**
 * Walking the given paths for the log files of every format but FreeCode (which has its own
 * discovery): each candidate file is classified by `detectFormat`. Directories that hold no
 * transcripts are not entered (dependencies, git objects, Claude Code's file history, opencode's
 * per-message and per-part folders, which are read through their session file).
 */
import { errorMessage } from '../session/errors.js';
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { IngestIssue } from '../session/model.js';
import { type Detection, detectFormat } from './detect-format.js';

export type FoundLog = Detection & { readonly path: string };

const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', 'file-history', 'tool-results', 'todos', 'shell-snapshots', 'debug', 'statsig']);
const OPENCODE_BULK_DIRS: ReadonlySet<string> = new Set(['message', 'part', 'session_diff', 'project', 'migration', 'snapshot']);
const CANDIDATE = /\.(jsonl|json|traj)$/;
const MAX_DEPTH = 10;

function skipDir(dir: string, name: string): boolean {
  if (SKIPPED_DIRS.has(name)) return true;
  return basename(dir) === 'storage' && OPENCODE_BULK_DIRS.has(name);
}

async function walk(dir: string, depth: number, found: FoundLog[], issues: IngestIssue[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    issues.push({ file: dir, line: 0, reason: `cannot list directory: ${errorMessage(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth < MAX_DEPTH && !skipDir(dir, entry.name)) await walk(path, depth + 1, found, issues);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && CANDIDATE.test(entry.name)) {
      await classify(path, found, issues);
    }
  }
}

async function classify(path: string, found: FoundLog[], issues: IngestIssue[]): Promise<void> {
  try {
    const detection = await detectFormat(path);
    if (detection !== null && detection.format !== 'freecode') found.push({ ...detection, path });
  } catch (error) {
    issues.push({ file: path, line: 0, reason: `cannot read: ${errorMessage(error)}` });
  }
}

/** Every non-FreeCode log file under the directory `dir`, in path order. */
export async function walkLogs(dir: string): Promise<{ readonly found: readonly FoundLog[]; readonly issues: readonly IngestIssue[] }> {
  const found: FoundLog[] = [];
  const issues: IngestIssue[] = [];
  await walk(dir, 0, found, issues);
  return { found, issues };
}
