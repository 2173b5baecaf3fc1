/**
 * opencode's stored JSON (formats.md §3.2–§3.4) → the fields cachecost reads: the session's
 * parent and title, each message's role, model and tokens, each part's content. Token semantics:
 * `input` excludes cache reads and writes, `reasoning` is apart from `output` (billed as output).
 */
import { asObject, asString, type JsonObject, timestampMsOf } from '../json-value.js';
import { checkTokenCount } from '../token-count.js';
import { normalizeUsage, type UsageReading } from '../usage.js';

export type OpencodeSessionInfo = {
  readonly title: string | null;
  readonly parentId: string | null;
  readonly directory: string | null;
};

export type OpencodeMessage = {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly createdMs: number | null;
  readonly model: string | null;
  readonly provider: string | null;
  readonly summary: boolean;
  readonly error: string | null;
  readonly tokens: JsonObject | null;
};

/** Reads a session file's object. */
export function sessionInfo(value: JsonObject): OpencodeSessionInfo {
  return {
    title: asString(value['title']) ?? null,
    parentId: asString(value['parentID']) ?? null,
    directory: asString(value['directory']) ?? null,
  };
}

/** Reads a message file's object; null when it is neither a user nor an assistant message. */
export function messageOf(value: JsonObject): OpencodeMessage | null {
  const role = value['role'];
  const id = asString(value['id']);
  if ((role !== 'user' && role !== 'assistant') || id === undefined) return null;
  const model = asObject(value['model']);
  const error = asObject(value['error']);
  return {
    id,
    role,
    createdMs: timestampMsOf(asObject(value['time'])?.['created']),
    model: asString(value['modelID']) ?? asString(model?.['modelID']) ?? null,
    provider: asString(value['providerID']) ?? asString(model?.['providerID']) ?? null,
    summary: value['summary'] === true,
    error:
      error === undefined
        ? null
        : (asString(asObject(error['data'])?.['message']) ?? asString(error['name']) ?? 'error'),
    tokens: asObject(value['tokens']) ?? null,
  };
}

/** Normalized usage of a `tokens` object; null when every count is zero (ccusage counts only non-zero messages, §3.4). */
export function opencodeUsage(tokens: JsonObject): UsageReading {
  const cache = asObject(tokens['cache']);
  const input = tokens['input'];
  const read = cache?.['read'];
  const write = cache?.['write'];
  const output = tokens['output'];
  const reasoning = tokens['reasoning'];
  // Only counts that are zero (or absent) make "no usage": a count that is not a number is invalid, not zero.
  if ([input, read, write, output, reasoning].every((v) => v === undefined || v === null || v === 0))
    return { usage: null, problem: null };
  // Only valid counts are added; an invalid one reaches normalizeUsage as is and makes the usage invalid.
  const isCount = (v: unknown): v is number => typeof v === 'number' && checkTokenCount('', v).ok;
  const inclusive = isCount(input) ? input + (isCount(read) ? read : 0) + (isCount(write) ? write : 0) : input;
  const outputWithReasoning = isCount(output) ? output + (isCount(reasoning) ? reasoning : 0) : output;
  return normalizeUsage({
    inputTokens: inclusive,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    outputTokens: outputWithReasoning,
    reasoningTokens: reasoning,
  });
}
