/**
 * The FreeCode adapter: discover → read (line by line, chunk by chunk; only the small JSON files
 * are read whole) → build. Bad content never throws: it becomes ingest issues on the session.
 * Reads are synchronous (`readLinesSync`, `readFileSync`), as Claude Code's are.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../../session/errors.js';
import type { IngestIssue, Session } from '../../session/model.js';
import { readLinesSync } from '../lines.js';
import { buildFreecodeSession, type MemorySource, type RolloutSource, type StoreSource } from './build.js';
import type { FreecodeSessionFiles } from './discover.js';
import type { ContentMode } from '../content-mode.js';
import { parseMemory } from './memory.js';
import { parseRolloutLine, type RolloutRecord } from './rollout.js';
import { EMPTY_META, parseMeta, parseStoreLine, type StoreMessage, type StoreMeta } from './store.js';

export { buildFreecodeSession, UNKNOWN_MODEL, type FreecodeSessionInput } from './build.js';
export { discoverFreecode, type Discovery, type FreecodeSessionFiles } from './discover.js';
export type { ContentMode } from '../content-mode.js';

function unreadable(file: string, error: unknown): IngestIssue {
  return { file, line: 0, reason: `cannot read: ${errorMessage(error)}` };
}

function readRollout(file: string, content: ContentMode, issues: IngestIssue[]): RolloutSource {
  const records: RolloutRecord[] = [];
  try {
    for (const line of readLinesSync(file)) {
      const result = parseRolloutLine(line, content);
      if (result.kind === 'record') {
        records.push(result.record);
        if (result.problem !== null)
          issues.push({ file, line: line.number, reason: result.problem, effect: 'repaired' });
      } else if (result.kind === 'invalid') {
        issues.push({ file, line: line.number, reason: result.reason });
      }
    }
  } catch (error) {
    issues.push(unreadable(file, error));
  }
  return { file, records };
}

function readMessages(file: string, content: ContentMode, issues: IngestIssue[]): StoreMessage[] {
  const messages: StoreMessage[] = [];
  try {
    for (const line of readLinesSync(file)) {
      const result = parseStoreLine(line, content);
      if (result.kind === 'message') {
        messages.push(result.message);
        if (result.problem !== null)
          issues.push({ file, line: line.number, reason: result.problem, effect: 'repaired' });
      } else if (result.kind === 'invalid') {
        issues.push({ file, line: line.number, reason: result.reason });
      }
    }
  } catch (error) {
    issues.push(unreadable(file, error));
  }
  return messages;
}

function readMeta(file: string, issues: IngestIssue[]): StoreMeta {
  try {
    const result = parseMeta(readFileSync(file, 'utf8'));
    if (result.kind === 'meta') return result.meta;
    issues.push({ file, line: 0, reason: result.reason });
  } catch (error) {
    issues.push(unreadable(file, error));
  }
  return EMPTY_META;
}

function readMemory(file: string, issues: IngestIssue[]): MemorySource | null {
  try {
    const result = parseMemory(readFileSync(file, 'utf8'));
    if (result.kind === 'invalid') {
      issues.push({ file, line: 0, reason: result.reason });
      return null;
    }
    for (const problem of result.problems) issues.push({ file, line: 0, reason: problem });
    return { file, memory: result.memory };
  } catch (error) {
    issues.push(unreadable(file, error));
    return null;
  }
}

/** Reads and joins one session's files; `content: 'sizes'` keeps only character counts (less memory). */
export async function loadFreecodeSession(
  files: FreecodeSessionFiles,
  options: { readonly content: ContentMode },
): Promise<Session> {
  const issues: IngestIssue[] = [];
  const read: string[] = [];
  const rollout = files.rolloutFile === null ? null : readRollout(files.rolloutFile, options.content, issues);
  if (files.rolloutFile !== null) read.push(files.rolloutFile);
  let store: StoreSource | null = null;
  if (files.metaFile !== null || files.messagesFile !== null) {
    const meta = files.metaFile === null ? EMPTY_META : readMeta(files.metaFile, issues);
    const messages = files.messagesFile === null ? [] : readMessages(files.messagesFile, options.content, issues);
    if (files.metaFile !== null) read.push(files.metaFile);
    if (files.messagesFile !== null) read.push(files.messagesFile);
    store = {
      messagesFile: files.messagesFile,
      metaFile: files.metaFile,
      projectDir: files.projectDir,
      messages,
      meta,
    };
  }
  const memory = files.memoryFile === null ? null : readMemory(files.memoryFile, issues);
  if (files.memoryFile !== null) read.push(files.memoryFile);
  return buildFreecodeSession({ sessionId: files.sessionId, files: read, issues, rollout, store, memory }, options);
}
