/**
 * One Codex rollout line → a record (formats.md §2.2–§2.5). Each line is
 * `{timestamp, type, payload}`; the kinds cachecost needs are read, UI events are known and
 * ignored, and an unknown kind is returned as such so the builder can report it once per file.
 */
import type { ToolCall } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { parseJsonLine } from '../json-line.js';
import { asArray, asObject, asString, type JsonObject, timestampMsOf } from '../json-value.js';
import type { Line } from '../lines.js';
import { jsonText, tooDeepReason } from '../json-text.js';

/** Token counts as a `token_count` event reports them (OpenAI convention: input includes cached, output includes reasoning). */
export type CodexTokenUsage = {
  readonly inputTokens: unknown;
  readonly cachedInputTokens: unknown;
  readonly cacheWriteTokens: unknown;
  readonly outputTokens: unknown;
  readonly reasoningTokens: unknown;
  readonly totalTokens: unknown;
};

export type CodexText = { readonly text: string | null; readonly chars: number };

export type CodexRecord =
  | {
      readonly kind: 'session_meta';
      readonly timestampMs: number | null;
      readonly id: string | null;
      /** The rollout this one was forked from (`forked_from_id`): its history is replayed first (§2.2). */
      readonly forkedFromId: string | null;
      /** True when `source` is `{subagent: {thread_spawn: …}}`: a sub-agent of `parentThreadId`. */
      readonly subagent: boolean;
      readonly cwd: string | null;
      readonly provider: string | null;
      readonly parentThreadId: string | null;
      readonly instructions: CodexText | null;
    }
  | { readonly kind: 'turn_context'; readonly timestampMs: number | null; readonly model: string | null }
  | {
      readonly kind: 'token_count';
      readonly timestampMs: number | null;
      /** null when `info` is null (a rate-limit-only update, §2.3). */
      readonly total: CodexTokenUsage | null;
      readonly last: CodexTokenUsage | null;
      readonly model: string | null;
    }
  | {
      readonly kind: 'message';
      readonly timestampMs: number | null;
      readonly role: string;
      readonly content: CodexText;
    }
  | { readonly kind: 'reasoning'; readonly timestampMs: number | null; readonly thinkingChars: number }
  | { readonly kind: 'tool_call'; readonly timestampMs: number | null; readonly call: ToolCall }
  | {
      readonly kind: 'tool_output';
      readonly timestampMs: number | null;
      readonly callId: string;
      readonly output: CodexText;
    }
  | { readonly kind: 'compacted'; readonly timestampMs: number | null; readonly summary: CodexText }
  | { readonly kind: 'context_compacted'; readonly timestampMs: number | null }
  | { readonly kind: 'error'; readonly timestampMs: number | null; readonly message: string }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'unknown'; readonly type: string };

export type CodexLineResult =
  | { readonly kind: 'record'; readonly record: CodexRecord }
  | { readonly kind: 'blank' }
  | { readonly kind: 'invalid'; readonly reason: string };

const IGNORED_EVENTS: ReadonlySet<string> = new Set([
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'task_started',
  'task_complete',
  'turn_aborted',
  'exec_command_begin',
  'exec_command_end',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'item_completed',
  'item_started',
  'thread_renamed',
  'patch_apply_begin',
  'patch_apply_end',
  'web_search_begin',
  'web_search_end',
  'entered_review_mode',
  'exited_review_mode',
  'stream_error',
  'warning',
]);

function textOf(value: unknown, content: ContentMode): CodexText {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : jsonText(value);
  return { text: kept(text, content), chars: text.length };
}

function messageText(payload: JsonObject, content: ContentMode): CodexText {
  let text = '';
  for (const part of asArray(payload['content']) ?? []) {
    const object = asObject(part);
    text += asString(object?.['text']) ?? '';
  }
  return { text: kept(text, content), chars: text.length };
}

function tokenUsage(value: unknown): CodexTokenUsage | null {
  const usage = asObject(value);
  if (usage === undefined) return null;
  return {
    inputTokens: usage['input_tokens'],
    cachedInputTokens: usage['cached_input_tokens'],
    cacheWriteTokens: usage['cache_write_input_tokens'],
    outputTokens: usage['output_tokens'],
    reasoningTokens: usage['reasoning_output_tokens'],
    totalTokens: usage['total_tokens'],
  };
}

/** The model-facing output of a tool call: a string, or `{content}` in some builds. */
function outputOf(value: unknown, content: ContentMode): CodexText {
  const object = asObject(value);
  if (object !== undefined && typeof object['content'] === 'string') return textOf(object['content'], content);
  return textOf(value, content);
}

function responseItem(payload: JsonObject, timestampMs: number | null, content: ContentMode): CodexRecord {
  const type = asString(payload['type']) ?? '';
  switch (type) {
    case 'message':
      return {
        kind: 'message',
        timestampMs,
        role: asString(payload['role']) ?? 'user',
        content: messageText(payload, content),
      };
    case 'reasoning': {
      let chars = 0;
      for (const part of asArray(payload['summary']) ?? []) chars += asString(asObject(part)?.['text'])?.length ?? 0;
      return { kind: 'reasoning', timestampMs, thinkingChars: chars };
    }
    case 'function_call':
      return {
        kind: 'tool_call',
        timestampMs,
        call: {
          callId: asString(payload['call_id']) ?? '',
          name: asString(payload['name']) ?? '',
          argsJson: textOf(payload['arguments'], 'text').text ?? '',
        },
      };
    case 'custom_tool_call':
      return {
        kind: 'tool_call',
        timestampMs,
        call: {
          callId: asString(payload['call_id']) ?? '',
          name: asString(payload['name']) ?? '',
          argsJson: textOf(payload['input'], 'text').text ?? '',
        },
      };
    case 'local_shell_call':
      return {
        kind: 'tool_call',
        timestampMs,
        call: {
          callId: asString(payload['call_id']) ?? asString(payload['id']) ?? '',
          name: 'local_shell',
          argsJson: jsonText(payload['action'] ?? {}),
          argsStringified: true,
        },
      };
    case 'web_search_call':
      return {
        kind: 'tool_call',
        timestampMs,
        call: {
          callId: asString(payload['id']) ?? '',
          name: 'web_search',
          argsJson: jsonText(payload['action'] ?? {}),
          argsStringified: true,
        },
      };
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output':
      return {
        kind: 'tool_output',
        timestampMs,
        callId: asString(payload['call_id']) ?? '',
        output: outputOf(payload['output'], content),
      };
    case 'ghost_snapshot':
      return { kind: 'ignored' };
    default:
      return { kind: 'unknown', type: `response_item/${type}` };
  }
}

/** Parses one rollout line; never throws. */
export function parseCodexLine(line: Line, content: ContentMode): CodexLineResult {
  try {
    return parseCodexLineUnguarded(line, content);
  } catch (error) {
    const reason = tooDeepReason(error);
    if (reason === null) throw error;
    return { kind: 'invalid', reason };
  }
}

function parseCodexLineUnguarded(line: Line, content: ContentMode): CodexLineResult {
  const json = parseJsonLine(line);
  if (json.kind !== 'json') return json;
  const object = asObject(json.value);
  if (object === undefined) return { kind: 'invalid', reason: 'not a JSON object' };
  const type = asString(object['type']);
  if (type === undefined) return { kind: 'invalid', reason: 'missing field "type"' };
  const payload = asObject(object['payload']) ?? {};
  const timestampMs = timestampMsOf(object['timestamp']);
  switch (type) {
    case 'session_meta': {
      const source = asObject(payload['source']);
      const spawn = asObject(asObject(source?.['subagent'])?.['thread_spawn']);
      const base = asString(asObject(payload['base_instructions'])?.['text']) ?? asString(payload['instructions']);
      return {
        kind: 'record',
        record: {
          kind: 'session_meta',
          timestampMs,
          id: asString(payload['id']) ?? null,
          forkedFromId: asString(payload['forked_from_id']) ?? null,
          subagent: spawn !== undefined,
          cwd: asString(payload['cwd']) ?? null,
          provider: asString(payload['model_provider']) ?? null,
          parentThreadId: asString(spawn?.['parent_thread_id']) ?? null,
          instructions: base === undefined ? null : textOf(base, content),
        },
      };
    }
    case 'turn_context':
      return {
        kind: 'record',
        record: { kind: 'turn_context', timestampMs, model: asString(payload['model']) ?? null },
      };
    case 'response_item':
      return { kind: 'record', record: responseItem(payload, timestampMs, content) };
    case 'compacted':
      return {
        kind: 'record',
        record: { kind: 'compacted', timestampMs, summary: textOf(payload['message'] ?? '', content) },
      };
    case 'event_msg': {
      const event = asString(payload['type']) ?? '';
      if (event === 'token_count') {
        const info = asObject(payload['info']);
        return {
          kind: 'record',
          record: {
            kind: 'token_count',
            timestampMs,
            total: tokenUsage(info?.['total_token_usage']),
            last: tokenUsage(info?.['last_token_usage']),
            model: asString(info?.['model']) ?? null,
          },
        };
      }
      if (event === 'context_compacted') return { kind: 'record', record: { kind: 'context_compacted', timestampMs } };
      if (event === 'error')
        return {
          kind: 'record',
          record: { kind: 'error', timestampMs, message: asString(payload['message']) ?? 'error' },
        };
      if (IGNORED_EVENTS.has(event)) return { kind: 'record', record: { kind: 'ignored' } };
      return { kind: 'record', record: { kind: 'unknown', type: `event_msg/${event}` } };
    }
    default:
      return { kind: 'record', record: { kind: 'unknown', type } };
  }
}
