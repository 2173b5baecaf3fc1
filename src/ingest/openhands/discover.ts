/**
 * OpenHands files as sessions (formats.md §4.1): a saved trajectory (a JSON array of events, or
 * one instance object) is one session; an evaluation `output.jsonl` holds one instance per line,
 * each a session named by its `instance_id` (else by its line); a line that is not an instance is an
 * ingest issue here and no session.
 */
import { errorMessage } from '../../session/errors.js';
import { basename, extname } from 'node:path';
import type { IngestIssue } from '../../session/model.js';
import { parseJsonLine } from '../json-line.js';
import { asArray, asObject, asString } from '../json-value.js';
import { readLinesSync } from '../lines.js';
import type { FoundLog } from '../walk-logs.js';

export type OpenhandsSessionFiles =
  | { readonly kind: 'trajectory'; readonly sessionId: string; readonly file: string }
  | { readonly kind: 'output-line'; readonly sessionId: string; readonly file: string; readonly line: number };

/** One session per trajectory file and per non-blank line of an `output.jsonl`, in path and line order. */
export async function groupOpenhandsFiles(
  found: readonly FoundLog[],
): Promise<{ readonly sessions: OpenhandsSessionFiles[]; readonly issues: IngestIssue[] }> {
  const sessions: OpenhandsSessionFiles[] = [];
  const issues: IngestIssue[] = [];
  for (const log of found) {
    if (extname(log.path) !== '.jsonl') {
      sessions.push({ kind: 'trajectory', sessionId: basename(log.path, extname(log.path)), file: log.path });
      continue;
    }
    try {
      for (const line of readLinesSync(log.path)) {
        // Each line is parsed here: a line that is no instance is one ingest issue, not an empty session.
        const json = parseJsonLine(line);
        if (json.kind === 'blank') continue;
        if (json.kind === 'invalid') {
          issues.push({ file: log.path, line: line.number, reason: json.reason });
          continue;
        }
        // An evaluation output line is one instance object (formats.md §4.1); event arrays are trajectory files.
        const object = asObject(json.value);
        if (asArray(object?.['history']) === undefined) {
          issues.push({ file: log.path, line: line.number, reason: 'not an instance (an object with "history")' });
          continue;
        }
        const id = asString(object?.['instance_id']);
        sessions.push({
          kind: 'output-line',
          sessionId: id ?? `${basename(log.path, '.jsonl')}-${line.number}`,
          file: log.path,
          line: line.number,
        });
      }
    } catch (error) {
      issues.push({ file: log.path, line: 0, reason: `cannot read: ${errorMessage(error)}` });
    }
  }
  return { sessions, issues };
}
