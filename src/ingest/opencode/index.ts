/**
 * The opencode adapter (JSON storage, ≤ 1.1.x): the session file, its message files and their
 * part files are small JSON documents read whole, then built into a session. The SQLite storage
 * of later releases (`opencode.db`) is not read yet. Bad content becomes ingest issues.
 */
import { errorMessage } from '../../session/errors.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IngestIssue, Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import { parseJsonDocument } from '../json-line.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-text.js';
import { asObject, type JsonObject } from '../json-value.js';
import { buildOpencodeSession, type OpencodeMessageInput } from './build.js';
import type { OpencodeSessionFiles } from './discover.js';
import { messageOf, sessionInfo } from './storage.js';

export { buildOpencodeSession, type OpencodeMessageInput, type OpencodeSessionInput } from './build.js';
export { groupOpencodeFiles, type OpencodeSessionFiles } from './discover.js';

async function readObject(file: string, issues: IngestIssue[]): Promise<JsonObject | null> {
  try {
    const value = parseJsonDocument(await readFile(file, 'utf8'));
    // The builder stringifies tool inputs: a file nested past the bound is reported, not stringified.
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
      issues.push({ file, line: 0, reason: `value nested deeper than ${MAX_JSON_DEPTH} levels` });
      return null;
    }
    const object = asObject(value);
    if (object === undefined) issues.push({ file, line: 0, reason: 'not a JSON object' });
    return object ?? null;
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? `malformed JSON (${error.message})` : `cannot read: ${errorMessage(error)}`;
    issues.push({ file, line: 0, reason });
    return null;
  }
}

/** The `.json` files of a directory in name order (ids sort by time); none when it does not exist. */
async function jsonFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Reads one opencode session with its messages and parts. */
export async function loadOpencodeSession(
  files: OpencodeSessionFiles,
  options: { readonly content: ContentMode },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  const read: string[] = [files.sessionFile];
  const session = await readObject(files.sessionFile, issues);
  const messages: OpencodeMessageInput[] = [];
  for (const file of await jsonFiles(join(files.storageDir, 'message', files.sessionId))) {
    read.push(file);
    const object = await readObject(file, issues);
    if (object === null) continue;
    const message = messageOf(object);
    if (message === null) {
      issues.push({ file, line: 0, reason: 'not a user or assistant message (missing "id" or "role"); ignored' });
      continue;
    }
    const parts: { file: string; part: JsonObject }[] = [];
    for (const partFile of await jsonFiles(join(files.storageDir, 'part', message.id))) {
      const part = await readObject(partFile, issues);
      if (part !== null) parts.push({ file: partFile, part });
    }
    messages.push({ file, message, parts });
  }
  messages.sort((a, b) => (a.message.id < b.message.id ? -1 : a.message.id > b.message.id ? 1 : 0));
  return buildOpencodeSession(
    {
      sessionId: files.sessionId,
      files: read,
      info: session === null ? { title: null, parentId: null, directory: null } : sessionInfo(session),
      messages,
      issues,
    },
    options,
  );
}
