/**
 * Format detection per file (formats.md §0, §6): the name and place of a file, then its first line, say
 * which agent wrote it. FreeCode files are recognised by name only (engine.md §6.1, §7.1); the
 * others by extension, their place (opencode's `storage/session`) and the keys of their first
 * JSON value (formats.md §0). A file no rule claims is not a session log.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, sep } from 'node:path';
import { asObject, asString, type JsonObject } from './json-value.js';

export type DetectedFormat = 'freecode' | 'claude-code' | 'codex' | 'opencode' | 'openhands' | 'swe-agent';

export type Detection = {
  readonly format: DetectedFormat;
  /**
   * What discovery reads from the first JSON line of a JSONL file (when it could be read whole):
   * its `type`, `sessionId` and `payload.id` / `payload.source` (Codex's `session_meta`). Only these
   * keys are kept: a first line can be a long prompt, and the run pack stores every file's detection.
   */
  readonly head: JsonObject | null;
};

/** The keys of a first line that discovery reads (`Detection.head`), when present. */
function discoveryHead(first: JsonObject): JsonObject {
  const head: Record<string, unknown> = {};
  if ('type' in first) head['type'] = first['type'];
  if ('sessionId' in first) head['sessionId'] = first['sessionId'];
  const payload = asObject(first['payload']);
  if (payload !== undefined) {
    const kept: Record<string, unknown> = {};
    if ('id' in payload) kept['id'] = payload['id'];
    if ('source' in payload) kept['source'] = payload['source'];
    head['payload'] = kept;
  }
  return head as JsonObject;
}

const FREECODE_NAMES: ReadonlySet<string> = new Set(['events.jsonl', 'messages.jsonl', 'meta.json', 'memory.json']);
/**
 * A JSONL file's first line is looked for in its first 4 KB (most first lines are shorter: a read
 * copies every byte it asks for, and discovery reads the head of every log), then in 64 KB, and a
 * longer first line gets up to 256 KB (rare).
 */
const HEAD_BYTES = 256 * 1024;
const FIRST_LINE_READS = [4 * 1024, 64 * 1024, HEAD_BYTES] as const;
const NEWLINE = 0x0a;
/** Whitespace and the UTF-8 BOM's bytes (EF BB BF), skipped before the first line. */
const LEADING_BYTES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0d, NEWLINE, 0xef, 0xbb, 0xbf]);

const CODEX_KINDS: ReadonlySet<string> = new Set([
  'session_meta',
  'turn_context',
  'response_item',
  'event_msg',
  'compacted',
]);
const CLAUDE_KINDS: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'progress',
  'last-prompt',
  'ai-title',
  'custom-title',
  'permission-mode',
  'pr-link',
  'teleported-from',
]);

/**
 * The buffer every head is read into, reused: each read's bytes are decoded before the next read
 * (no `await` in between), so the returned view is only ever looked at while it holds its file.
 */
let headBuffer: Buffer | null = null;

/**
 * The first `limit` bytes of a regular file (discovery classifies nothing else), read synchronously:
 * discovery classifies files one after another, and three round trips through the thread pool per
 * file (open, read, close) left the main thread idle ~0.1 s over 576 transcripts, several times
 * the reads themselves.
 */
function readBytes(path: string, limit: number): Buffer {
  if (headBuffer === null || headBuffer.length < limit) headBuffer = Buffer.allocUnsafe(Math.max(limit, HEAD_BYTES));
  const fd = openSync(path, 'r');
  try {
    return headBuffer.subarray(0, readSync(fd, headBuffer, 0, limit, 0));
  } finally {
    closeSync(fd);
  }
}

function decodeHead(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

function readHead(path: string): string {
  return decodeHead(readBytes(path, HEAD_BYTES));
}

/** The `\n` ending the first non-blank line (leading blank lines are skipped, as `trimStart` did); -1 if none. */
function firstLineEnd(bytes: Buffer): number {
  let start = 0;
  while (start < bytes.length && LEADING_BYTES.has(bytes[start] ?? 0)) start += 1;
  return bytes.indexOf(NEWLINE, start);
}

/**
 * The start of a JSONL file, decoded only up to its first line (a transcript's later lines can be
 * megabytes of tool output nobody needs for detection): 4 KB are read, then 64 KB and 256 KB while the
 * first line is longer; when even that holds no `\n`, the whole prefix is returned (the regex fallback reads it).
 */
function readFirstLine(path: string): string {
  let bytes: Buffer = Buffer.alloc(0);
  let end = -1;
  for (const limit of FIRST_LINE_READS) {
    bytes = readBytes(path, limit);
    end = firstLineEnd(bytes);
    // Found, or a read that came short: it held the whole file.
    if (end !== -1 || bytes.length < limit) break;
  }
  return decodeHead(end === -1 ? bytes : bytes.subarray(0, end + 1));
}

/** Lines looked at for the first JSON object: a first line that is damaged must not hide the whole file. */
const HEAD_LINES = 8;

function firstLineObject(head: string): JsonObject | null {
  const lines = head.split('\n');
  // The head's last piece may be a line cut at HEAD_BYTES: it is only tried when it is the only one.
  const complete = lines.length > 1 ? lines.slice(0, -1) : lines;
  for (const line of complete.slice(0, HEAD_LINES)) {
    if (line.trim() === '') continue;
    try {
      const object = asObject(JSON.parse(line.replace(/^\uFEFF/, '')));
      if (object !== undefined) return object;
    } catch {
      // A malformed line: its reader reports it; detection looks at the next one.
    }
  }
  return null;
}

/**
 * The first JSON object of a JSONL file and the text it came from. Usually that is the first line
 * alone (the bounded read above); only when that line is damaged or not an object are the next
 * few lines of the same bounded prefix (at most HEAD_BYTES) tried, so one bad line does not hide
 * the whole file.
 */
function readJsonlHead(path: string): { readonly head: string; readonly first: JsonObject | null } {
  const line = readFirstLine(path);
  const first = firstLineObject(line);
  // No `\n` in the first line's read: there is no later line within the bound to fall back on.
  if (first !== null || !line.endsWith('\n')) return { head: line, first };
  const head = readHead(path);
  return { head, first: firstLineObject(head) };
}

/** Which JSONL format a first line belongs to, from its keys; a prefix regex when the line was too long to read whole. */
function jsonlFormat(head: string, first: JsonObject | null): DetectedFormat | null {
  if (first !== null) {
    const type = asString(first['type']);
    if (type !== undefined && CODEX_KINDS.has(type) && 'payload' in first) return 'codex';
    if (
      type !== undefined &&
      CLAUDE_KINDS.has(type) &&
      ('sessionId' in first || 'uuid' in first || 'leafUuid' in first || 'messageId' in first)
    ) {
      return 'claude-code';
    }
    if ('instance_id' in first && ('history' in first || 'metrics' in first)) return 'openhands';
    return null;
  }
  const prefix = head.slice(0, 4096);
  if (/^\s*\{"timestamp":"[^"]*","type":"(session_meta|turn_context|response_item|event_msg|compacted)"/.test(prefix))
    return 'codex';
  if (/"sessionId":"/.test(prefix) && /"type":"(user|assistant|system|summary)"/.test(prefix)) return 'claude-code';
  if (/"instance_id"\s*:/.test(prefix)) return 'openhands';
  return null;
}

/** True for `…/storage/session/<projectID>/<sessionID>.json` (opencode ≤ 1.1, formats.md §3.1). */
export function isOpencodeSessionFile(path: string): boolean {
  const parts = path.split(sep);
  const n = parts.length;
  return n >= 4 && parts[n - 3] === 'session' && parts[n - 4] === 'storage' && (parts[n - 1] ?? '').endsWith('.json');
}

/**
 * True for `…/<sessionId>/subagents/agent-<id>.jsonl` (Claude Code 2.1.x, formats.md §1.1): such a file
 * is a subagent transcript by its place, so when its first lines are damaged it is still read as one
 * and each broken line is its own ingest issue, as in the main transcript.
 */
export function isClaudeSubagentFile(path: string): boolean {
  const parts = path.split(sep);
  const n = parts.length;
  return n >= 3 && parts[n - 2] === 'subagents' && /^agent-.+\.jsonl$/.test(parts[n - 1] ?? '');
}

/** The format of one file, or null when it is not a session log cachecost reads; a read error rejects. */
export async function detectFormat(path: string): Promise<Detection | null> {
  const name = basename(path);
  if (FREECODE_NAMES.has(name)) return { format: 'freecode', head: null };
  if (name.endsWith('.traj')) return { format: 'swe-agent', head: null };
  if (name.endsWith('.json')) {
    if (isOpencodeSessionFile(path)) return { format: 'opencode', head: null };
    const head = readHead(path).trimStart();
    // A saved OpenHands trajectory is an array of events (formats.md §4.1).
    if (head.startsWith('[') && /"(action|observation)"\s*:/.test(head.slice(0, 8192)))
      return { format: 'openhands', head: null };
    if (head.startsWith('{') && /"instance_id"\s*:/.test(head.slice(0, 8192)) && /"history"\s*:/.test(head))
      return { format: 'openhands', head: null };
    return null;
  }
  if (name.endsWith('.jsonl')) {
    const { head, first } = readJsonlHead(path);
    const format = jsonlFormat(head, first) ?? (isClaudeSubagentFile(path) ? 'claude-code' : null);
    return format === null ? null : { format, head: first === null ? null : discoveryHead(first) };
  }
  return null;
}
