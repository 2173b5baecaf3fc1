/**
 * OpenHands files as sessions (formats.md §4.1): a saved trajectory (a JSON array of events, or
 * one instance object) is one session; an evaluation `output.jsonl` holds one instance per line,
 * each a session named by its line (its `instance_id` is read when the session is loaded).
 */
import { errorMessage } from '../../session/errors.js';
import { basename, extname } from 'node:path';
import type { IngestIssue } from '../../session/model.js';
import { readLines } from '../lines.js';
import type { FoundLog } from '../walk-logs.js';

export type OpenhandsSessionFiles =
  | { readonly kind: 'trajectory'; readonly sessionId: string; readonly file: string }
  | { readonly kind: 'output-line'; readonly sessionId: string; readonly file: string; readonly line: number };

/** One session per trajectory file and per non-blank line of an `output.jsonl`, in path and line order. */
export async function groupOpenhandsFiles(found: readonly FoundLog[]): Promise<{ readonly sessions: OpenhandsSessionFiles[]; readonly issues: IngestIssue[] }> {
  const sessions: OpenhandsSessionFiles[] = [];
  const issues: IngestIssue[] = [];
  for (const log of found) {
    if (extname(log.path) !== '.jsonl') {
      sessions.push({ kind: 'trajectory', sessionId: basename(log.path, extname(log.path)), file: log.path });
      continue;
    }
    try {
      for await (const line of readLines(log.path)) {
        if (line.text.trim() === '') continue;
        // The instance id sits in the line; a cheap look avoids parsing a large line twice.
        const id = /"instance_id"\s*:\s*"([^"\\]+)"/.exec(line.text.slice(0, 4096))?.[1];
        sessions.push({ kind: 'output-line', sessionId: id ?? `${basename(log.path, '.jsonl')}-${line.number}`, file: log.path, line: line.number });
      }
    } catch (error) {
      issues.push({ file: log.path, line: 0, reason: `cannot read: ${errorMessage(error)}` });
    }
  }
  return { sessions, issues };
}
