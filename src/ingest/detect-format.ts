/**
 * Format detection per file (issue 5): the name and place of a file, then its first line, say
 * which agent wrote it. FreeCode files are recognised by name only (engine.md §6.1, §7.1); the
 * others by extension, their place (opencode's `storage/session`) and the keys of their first
 * JSON value (formats.md §0). A file no rule claims is not a session log.
 */
import { open } from 'node:fs/promises';
import { basename, sep } from 'node:path';
import { asObject, asString, type JsonObject } from './json-value.js';

export type DetectedFormat = 'freecode' | 'claude-code' | 'codex' | 'opencode' | 'openhands' | 'swe-agent';

export type Detection = {
  readonly format: DetectedFormat;
  /** The first JSON line of a JSONL file when it could be read whole; discovery reads ids from it. */
  readonly head: JsonObject | null;
};

const FREECODE_NAMES: ReadonlySet<string> = new Set(['events.jsonl', 'messages.jsonl', 'meta.json', 'memory.json']);
const HEAD_BYTES = 256 * 1024;

const CODEX_KINDS: ReadonlySet<string> = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
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

async function readHead(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
  } finally {
    await handle.close();
  }
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

/** Which JSONL format a first line belongs to, from its keys; a prefix regex when the line was too long to read whole. */
function jsonlFormat(head: string, first: JsonObject | null): DetectedFormat | null {
  if (first !== null) {
    const type = asString(first['type']);
    if (type !== undefined && CODEX_KINDS.has(type) && 'payload' in first) return 'codex';
    if (type !== undefined && CLAUDE_KINDS.has(type) && ('sessionId' in first || 'uuid' in first || 'leafUuid' in first || 'messageId' in first)) {
      return 'claude-code';
    }
    if ('instance_id' in first && ('history' in first || 'metrics' in first)) return 'openhands';
    return null;
  }
  const prefix = head.slice(0, 4096);
  if (/^\s*\{"timestamp":"[^"]*","type":"(session_meta|turn_context|response_item|event_msg|compacted)"/.test(prefix)) return 'codex';
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

/** The format of one file, or null when it is not a session log cachecost reads; a read error rejects. */
export async function detectFormat(path: string): Promise<Detection | null> {
  const name = basename(path);
  if (FREECODE_NAMES.has(name)) return { format: 'freecode', head: null };
  if (name.endsWith('.traj')) return { format: 'swe-agent', head: null };
  if (name.endsWith('.json')) {
    if (isOpencodeSessionFile(path)) return { format: 'opencode', head: null };
    const head = (await readHead(path)).trimStart();
    // A saved OpenHands trajectory is an array of events (formats.md §4.1).
    if (head.startsWith('[') && /"(action|observation)"\s*:/.test(head.slice(0, 8192))) return { format: 'openhands', head: null };
    if (head.startsWith('{') && /"instance_id"\s*:/.test(head.slice(0, 8192)) && /"history"\s*:/.test(head)) return { format: 'openhands', head: null };
    return null;
  }
  if (name.endsWith('.jsonl')) {
    const head = await readHead(path);
    const first = firstLineObject(head);
    const format = jsonlFormat(head, first);
    return format === null ? null : { format, head: first };
  }
  return null;
}
