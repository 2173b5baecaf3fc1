/**
 * The OpenHands adapter: a trajectory file or one `output.jsonl` line → events → a session.
 * Bad content never throws: it becomes ingest issues on the session.
 */
import { errorMessage } from '../../session/errors.js';
import { readFileSync } from 'node:fs';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { parseJsonDocument, parseJsonLine } from '../json-line.js';
import { asArray, asObject, asString } from '../json-value.js';
import { readLinesSync } from '../lines.js';
import type { OpenhandsSessionFiles } from './discover.js';
import { type OpenhandsInstance, openhandsParts } from './events.js';

export { groupOpenhandsFiles, type OpenhandsSessionFiles } from './discover.js';
export { openhandsParts, type OpenhandsInstance, type OpenhandsParts } from './events.js';

function lineValue(file: string, number: number): { value: unknown } | { reason: string } {
  for (const line of readLinesSync(file)) {
    if (line.number !== number) continue;
    const json = parseJsonLine(line);
    return json.kind === 'json'
      ? { value: json.value }
      : { reason: json.kind === 'blank' ? 'blank line' : json.reason };
  }
  return { reason: 'line not found (the file changed since discovery)' };
}

/** An instance object (`output.jsonl` line or single-instance JSON) or an event array → the instance to build. */
function instanceOf(value: unknown, files: OpenhandsSessionFiles, line: number): OpenhandsInstance | null {
  const events = asArray(value);
  if (events !== undefined)
    return { sessionId: files.sessionId, file: files.file, line, events, tokenUsages: [], defaultModel: null };
  const object = asObject(value);
  const history = asArray(object?.['history']);
  if (object === undefined || history === undefined) return null;
  const metrics = asObject(object['metrics']);
  const llm = asObject(asObject(object['metadata'])?.['llm_config']);
  return {
    sessionId: asString(object['instance_id']) ?? files.sessionId,
    file: files.file,
    line,
    events: history,
    tokenUsages: asArray(metrics?.['token_usages']) ?? [],
    defaultModel: asString(llm?.['model']) ?? null,
  };
}

/** Reads one OpenHands session. */
export async function loadOpenhandsSession(
  files: OpenhandsSessionFiles,
  options: { readonly content: ContentMode },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  const line = files.kind === 'output-line' ? files.line : 0;
  let value: unknown = null;
  try {
    if (files.kind === 'output-line') {
      const read = lineValue(files.file, files.line);
      if ('reason' in read) issues.push({ file: files.file, line, reason: read.reason });
      else value = read.value;
    } else {
      try {
        value = parseJsonDocument(readFileSync(files.file, 'utf8'));
      } catch (error) {
        issues.push({ file: files.file, line: 0, reason: `malformed JSON (${errorMessage(error)})` });
      }
    }
  } catch (error) {
    issues.push({ file: files.file, line, reason: `cannot read: ${errorMessage(error)}` });
  }
  const instance = value === null ? null : instanceOf(value, files, line);
  if (value !== null && instance === null)
    issues.push({ file: files.file, line, reason: 'neither an event array nor an instance with "history"' });
  const parts = instance === null ? { items: [], requests: [], issues: [] } : openhandsParts(instance, options.content);
  return {
    id: instance?.sessionId ?? files.sessionId,
    source: 'openhands',
    title: null,
    project: null,
    files: [files.file],
    items: parts.items,
    requests: parts.requests,
    events: [],
    issues: [...issues, ...parts.issues],
    parentSessionId: null,
    totalsOnly: null,
  };
}
