/**
 * One Claude Code transcript line → a record (formats.md §1.2–§1.8). Only the fields the session
 * needs are read; the many UI record types are known and ignored, `progress` records (which embed
 * copies of subagent usage, §1.5) are ignored on purpose, and an unknown type is returned as such
 * so the builder can report it once per file without failing.
 */
import type { MeasuredUsage, ToolCall } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { parseJsonLine } from '../json-line.js';
import { asArray, asObject, asString, type JsonObject, timestampMsOf } from '../json-value.js';
import { type Line, type RawLine, rawLineEnd, rawLineStart, rawLineText } from '../lines.js';
import { type CompiledElision, compileElision, isJson, scanJson } from '../json-scan.js';
import { isTokenCount } from '../token-count.js';
import { normalizeUsage, type UsageReading } from '../usage.js';
import { checkJsonDepth, jsonText, MAX_JSON_DEPTH, tooDeepReason } from '../json-text.js';

function tokenCountOf(value: unknown): number | undefined {
  return isTokenCount(value) ? value : undefined;
}

/** A count to add to the inclusive prompt: a valid one, else 0 (an invalid one makes the usage invalid anyway). */
function countOrZero(value: unknown): number {
  return isTokenCount(value) ? value : 0;
}

/** Fields of a conversation record that place it in the session. */
export type Envelope = {
  readonly uuid: string | null;
  readonly parentUuid: string | null;
  readonly sidechain: boolean;
  readonly agentId: string | null;
  readonly sessionId: string | null;
  readonly timestampMs: number | null;
  readonly cwd: string | null;
};

export type TextContent = {
  readonly text: string | null;
  readonly chars: number;
  readonly imageParts: number;
  readonly imageChars: number;
};

export type ToolResultBlock = TextContent & { readonly callId: string; readonly failed: boolean };

export type AssistantRecord = Envelope & {
  readonly kind: 'assistant';
  readonly messageId: string | null;
  readonly requestId: string | null;
  readonly model: string;
  /** `<synthetic>` messages and `isApiErrorMessage` lines: not a provider request (§6 item 1). */
  readonly apiError: string | null;
  readonly usage: MeasuredUsage | null;
  /** The line reports usage that is not a valid count: the group's usage is unknown, not an earlier line's. */
  readonly usageInvalid: boolean;
  readonly text: string | null;
  readonly textChars: number;
  readonly thinkingChars: number;
  readonly toolCalls: readonly ToolCall[];
  /**
   * Web searches the provider ran for the response (`usage.server_tool_use.web_search_requests`,
   * 2.1.x, formats.md §1.3): billed per search, not in tokens, so never in the bill; 0 when absent
   * or not a count.
   */
  readonly webSearches: number;
};

export type UserRecord = Envelope & {
  readonly kind: 'user';
  readonly isMeta: boolean;
  readonly isCompactSummary: boolean;
  /** The text and image blocks, joined; chars 0 when the message holds only tool results. */
  readonly content: TextContent;
  readonly hasText: boolean;
  readonly toolResults: readonly ToolResultBlock[];
};

export type ClaudeRecord =
  | AssistantRecord
  | UserRecord
  | (Envelope & {
      readonly kind: 'compact_boundary';
      readonly trigger: 'auto' | 'manual' | 'unknown';
      readonly preTokens: number | null;
      readonly postTokens: number | null;
    })
  | (Envelope & { readonly kind: 'api_error'; readonly message: string })
  | { readonly kind: 'title'; readonly title: string; readonly leafUuid: string | null; readonly fromSummary: boolean }
  | {
      readonly kind: 'ignored';
      /** Where the record sits in the `parentUuid` tree (§1.6), when it has a uuid: later records may name it as parent. */
      readonly link?: { readonly uuid: string; readonly parentUuid: string | null; readonly sidechain: boolean };
    }
  | { readonly kind: 'unknown'; readonly type: string };

export type ClaudeLineResult =
  | { readonly kind: 'record'; readonly record: ClaudeRecord; readonly problem: string | null }
  | { readonly kind: 'blank' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Record types that carry nothing cachecost counts (§1.2); `progress` usage is a copy (§1.5). */
const IGNORED_TYPES: ReadonlySet<string> = new Set([
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'progress',
  'last-prompt',
  'permission-mode',
  'pr-link',
  'teleported-from',
]);

/**
 * One copy of each of the strings every line repeats (session id, cwd, agent id, model): a 1 GB
 * transcript holds hundreds of thousands of records until its session is built, and a fresh copy
 * of each per record was a large part of them. Bounded: the table starts over when it fills.
 */
const shared = new Map<string, string>();

/**
 * The last string a field gave: consecutive lines almost always repeat it, and comparing with it
 * costs less than hashing the new copy for the table.
 */
type LastShared = { value: string };

function sharedString(value: unknown, last: LastShared): string | null {
  if (typeof value !== 'string') return null;
  if (value === last.value) return last.value;
  let known = shared.get(value);
  if (known === undefined) {
    if (shared.size >= 10_000) shared.clear();
    shared.set(value, value);
    known = value;
  }
  last.value = known;
  return known;
}

const lastAgentId: LastShared = { value: '' };
const lastSessionId: LastShared = { value: '' };
const lastCwd: LastShared = { value: '' };
const lastModel: LastShared = { value: '' };

function envelope(line: JsonObject): Envelope {
  return {
    uuid: asString(line['uuid']) ?? null,
    parentUuid: asString(line['parentUuid']) ?? null,
    sidechain: line['isSidechain'] === true,
    agentId: sharedString(line['agentId'], lastAgentId),
    sessionId: sharedString(line['sessionId'], lastSessionId),
    timestampMs: timestampMsOf(line['timestamp']),
    cwd: sharedString(line['cwd'], lastCwd),
  };
}

/** An ignored record, with its place in the `parentUuid` tree when it has one (§1.6). */
function ignoredLink(line: JsonObject): ClaudeRecord {
  const uuid = asString(line['uuid']);
  if (uuid === undefined) return { kind: 'ignored' };
  return {
    kind: 'ignored',
    link: { uuid, parentUuid: asString(line['parentUuid']) ?? null, sidechain: line['isSidechain'] === true },
  };
}

type MutableText = { text: string; chars: number; imageParts: number; imageChars: number };

function addBlockText(acc: MutableText, block: unknown): void {
  if (typeof block === 'string') {
    acc.text += block;
    acc.chars += block.length;
    return;
  }
  const object = asObject(block);
  if (object === undefined) return;
  if (object['type'] === 'text') {
    const text = asString(object['text']) ?? '';
    acc.text += text;
    acc.chars += text.length;
  } else if (object['type'] === 'image') {
    acc.imageParts += 1;
    acc.imageChars += asString(asObject(object['source'])?.['data'])?.length ?? 0;
  }
}

function finishText(acc: MutableText, content: ContentMode): TextContent {
  return { text: kept(acc.text, content), chars: acc.chars, imageParts: acc.imageParts, imageChars: acc.imageChars };
}

/** A tool_result's model-facing content: a string, or text/image blocks (§1.8). */
function toolResultContent(value: unknown, content: ContentMode): TextContent {
  const acc: MutableText = { text: '', chars: 0, imageParts: 0, imageChars: 0 };
  const blocks = asArray(value);
  if (blocks === undefined) addBlockText(acc, value);
  else for (const block of blocks) addBlockText(acc, block);
  return finishText(acc, content);
}

/** A content block's sizes in `usage` mode, which does not read them. */
const NO_CONTENT: TextContent = { text: null, chars: 0, imageParts: 0, imageChars: 0 };

/**
 * Block types that call a tool. Looked up in a set, not compared in turn: in a cold run the second
 * comparison first ran (a block other than `tool_use` in a line long enough to be deep) only after
 * `assistantRecord` had been optimized with no feedback for it, and deoptimized it (`--trace-deopt`).
 */
const TOOL_USE_TYPES: ReadonlySet<unknown> = new Set(['tool_use', 'server_tool_use']);

/**
 * A tool call in `usage` mode: no arguments text (only the sizes of items need it), but the same
 * depth check as `jsonText`, so a line too deep to read is the same issue in every mode.
 */
function usageModeToolCall(input: unknown): void {
  checkJsonDepth(input ?? {});
}

function userRecord(line: JsonObject, message: JsonObject | undefined, content: ContentMode): UserRecord {
  const acc: MutableText = { text: '', chars: 0, imageParts: 0, imageChars: 0 };
  const toolResults: ToolResultBlock[] = [];
  let hasText = false;
  const raw = message?.['content'];
  const blocks = asArray(raw);
  if (blocks === undefined) {
    if (typeof raw === 'string') {
      hasText = true;
      addBlockText(acc, raw);
    }
  } else {
    for (const block of blocks) {
      const object = asObject(block);
      if (object?.['type'] === 'tool_result') {
        const sizes = content === 'usage' ? NO_CONTENT : toolResultContent(object['content'], content);
        toolResults.push({
          text: sizes.text,
          chars: sizes.chars,
          imageParts: sizes.imageParts,
          imageChars: sizes.imageChars,
          callId: asString(object['tool_use_id']) ?? '',
          failed: object['is_error'] === true,
        });
      } else {
        hasText = true;
        if (content !== 'usage') addBlockText(acc, block);
      }
    }
  }
  // The envelope's fields are read in place, not through `envelope` (one object less per line).
  return {
    uuid: asString(line['uuid']) ?? null,
    parentUuid: asString(line['parentUuid']) ?? null,
    sidechain: line['isSidechain'] === true,
    agentId: sharedString(line['agentId'], lastAgentId),
    sessionId: sharedString(line['sessionId'], lastSessionId),
    timestampMs: timestampMsOf(line['timestamp']),
    cwd: sharedString(line['cwd'], lastCwd),
    kind: 'user',
    isMeta: line['isMeta'] === true,
    isCompactSummary: line['isCompactSummary'] === true,
    content: content === 'usage' && acc.chars === 0 && acc.imageParts === 0 ? NO_CONTENT : finishText(acc, content),
    hasText,
    toolResults,
  };
}

function usageOf(value: unknown): UsageReading {
  const raw = asObject(value);
  if (raw === undefined) return { usage: null, problem: null };
  const input = raw['input_tokens'];
  const read = raw['cache_read_input_tokens'];
  const write = raw['cache_creation_input_tokens'];
  // Anthropic's input_tokens is the uncached part: the inclusive prompt adds reads and writes (§1.3).
  // Only valid counts are added; an invalid one reaches normalizeUsage as is and makes the usage invalid.
  const inclusive =
    input === undefined ? undefined : isTokenCount(input) ? input + countOrZero(read) + countOrZero(write) : input;
  const reading = normalizeUsage({
    inputTokens: inclusive,
    outputTokens: raw['output_tokens'],
    cacheReadTokens: read,
    cacheWriteTokens: write,
  });
  if (reading.usage === null) return reading;
  const split = asObject(raw['cache_creation']);
  const w5m = tokenCountOf(split?.['ephemeral_5m_input_tokens']);
  const w1h = tokenCountOf(split?.['ephemeral_1h_input_tokens']);
  if (w5m === undefined || w1h === undefined) return reading;
  if (w5m + w1h !== reading.usage.cacheWriteTokens) {
    const problem = `cache_creation split (${w5m} + ${w1h}) does not add up to cache_creation_input_tokens (${reading.usage.cacheWriteTokens}); TTL split unknown`;
    return { usage: reading.usage, problem: reading.problem === null ? problem : `${reading.problem}; ${problem}` };
  }
  // Listed, not spread (a spread and overrides is a slow path in V8, on every assistant line).
  const usage = reading.usage;
  return {
    usage: {
      promptTokens: usage.promptTokens,
      uncachedInputTokens: usage.uncachedInputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      cacheWrite5mTokens: w5m,
      cacheWrite1hTokens: w1h,
      outputTokens: usage.outputTokens,
      reasoningTokens: usage.reasoningTokens,
    },
    problem: reading.problem,
  };
}

/** `<synthetic>` messages and `isApiErrorMessage` lines are API errors, not requests (§6 item 1). */
function isApiError(line: JsonObject, message: JsonObject | undefined): boolean {
  return line['isApiErrorMessage'] === true || message?.['model'] === '<synthetic>';
}

function assistantRecord(
  line: JsonObject,
  message: JsonObject | undefined,
  content: ContentMode,
  mayBeDeep: boolean,
): { record: AssistantRecord; problem: string | null } {
  const model = sharedString(message?.['model'], lastModel) ?? 'unknown';
  const isError = isApiError(line, message);
  let text = '';
  let textChars = 0;
  let thinkingChars = 0;
  const toolCalls: ToolCall[] = [];
  const raw = message?.['content'];
  // `usage` mode reads the content only for the depth check, or for an error's text.
  const sized = content !== 'usage' || isError;
  for (const block of asArray(raw) ?? (typeof raw === 'string' ? [raw] : [])) {
    if (!sized) {
      const type = asObject(block)?.['type'];
      if (mayBeDeep && TOOL_USE_TYPES.has(type)) usageModeToolCall(asObject(block)?.['input']);
      continue;
    }
    if (typeof block === 'string') {
      text += block;
      textChars += block.length;
      continue;
    }
    const object = asObject(block);
    switch (object?.['type']) {
      case 'text': {
        const value = asString(object['text']) ?? '';
        text += value;
        textChars += value.length;
        break;
      }
      case 'thinking':
        thinkingChars += asString(object['thinking'])?.length ?? 0;
        break;
      case 'redacted_thinking':
        thinkingChars += asString(object['data'])?.length ?? 0;
        break;
      case 'tool_use':
      case 'server_tool_use':
        toolCalls.push({
          callId: asString(object['id']) ?? '',
          name: asString(object['name']) ?? '',
          argsJson: jsonText(object['input'] ?? {}),
          argsStringified: true,
        });
        break;
      default:
        break;
    }
  }
  const { usage, problem, invalid } = isError
    ? { usage: null, problem: null, invalid: false }
    : usageOf(message?.['usage']);
  const errorText = asString(line['error']) ?? (isError ? text : null);
  // The envelope's fields are listed, not spread: a spread followed by a dozen more properties is
  // a slow path in V8 that cost as much as the JSON.parse of the line. They are read in place, not
  // through `envelope` (one object less per line).
  return {
    record: {
      uuid: asString(line['uuid']) ?? null,
      parentUuid: asString(line['parentUuid']) ?? null,
      sidechain: line['isSidechain'] === true,
      agentId: sharedString(line['agentId'], lastAgentId),
      sessionId: sharedString(line['sessionId'], lastSessionId),
      timestampMs: timestampMsOf(line['timestamp']),
      cwd: sharedString(line['cwd'], lastCwd),
      kind: 'assistant',
      messageId: asString(message?.['id']) ?? null,
      requestId: asString(line['requestId']) ?? null,
      model,
      apiError: isError ? (errorText ?? 'API error') : null,
      usage,
      usageInvalid: invalid === true,
      text: kept(text, content),
      textChars,
      thinkingChars,
      toolCalls,
      webSearches: isError ? 0 : webSearchesOf(message?.['usage']),
    },
    problem,
  };
}

/** `usage.server_tool_use.web_search_requests` when it is a count, else 0. */
function webSearchesOf(usage: unknown): number {
  return tokenCountOf(asObject(asObject(usage)?.['server_tool_use'])?.['web_search_requests']) ?? 0;
}

function triggerOf(value: unknown): 'auto' | 'manual' | 'unknown' {
  return value === 'auto' || value === 'manual' ? value : 'unknown';
}

function countOrNull(value: unknown): number | null {
  return tokenCountOf(value) ?? null;
}

function describeJson(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Why an assistant record's `message` is not an Anthropic Messages API object (§1.3), or null when
 * it is one. Such a record is not a request: read as one, it would be a request of model "unknown"
 * (seen: a string spread into an object, `{"0":"H","1":"i",…}`).
 */
function assistantMessageProblem(raw: unknown): string | null {
  const message = asObject(raw);
  if (message === undefined) {
    return `assistant record whose "message" is ${describeJson(raw)}, not a message object; not counted`;
  }
  // The shape every well-formed line has, checked first with no array or closure per line.
  const id = message['id'];
  const model = message['model'];
  const usage = message['usage'];
  const content = message['content'];
  if (
    typeof id === 'string' &&
    typeof model === 'string' &&
    Array.isArray(content) &&
    typeof usage === 'object' &&
    usage !== null &&
    !Array.isArray(usage)
  ) {
    return null;
  }
  if (!('id' in message || 'model' in message || 'content' in message || 'usage' in message || 'role' in message)) {
    const keys = Object.keys(message)
      .slice(0, 3)
      .map((key) => JSON.stringify(key))
      .join(', ');
    const listed = keys === '' ? 'none' : keys;
    return `assistant record whose "message" has none of id, model, content, usage, role (keys ${listed}); not counted`;
  }
  const wrong: string[] = [];
  if ('id' in message && typeof id !== 'string') wrong.push(`"id" is ${describeJson(id)}`);
  if ('model' in message && typeof model !== 'string') wrong.push(`"model" is ${describeJson(model)}`);
  if (usage !== undefined && usage !== null && asObject(usage) === undefined) {
    wrong.push(`"usage" is ${describeJson(usage)}`);
  }
  if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
    wrong.push(`"content" is ${describeJson(content)}`);
  }
  return wrong.length === 0 ? null : `assistant record whose message is malformed (${wrong.join(', ')}); not counted`;
}

/** Parses one transcript line; never throws (bad JSON and non-object lines are `invalid`). */
export function parseClaudeLine(line: Line, content: ContentMode): ClaudeLineResult {
  const json = parseJsonLine(line);
  if (json.kind !== 'json') return json;
  // A value nested n levels deep is at least 2n characters long ("[" and "]" per level): a shorter
  // line cannot hold a tool input deeper than MAX_JSON_DEPTH, and its walk is skipped.
  return guarded(json.value, content, false, line.text.length >= MAY_BE_DEEP_CHARS) ?? WHOLE_LINE_ELIDED;
}

/** A value nested n levels deep is at least 2n characters long: see `parseClaudeLine`. */
const MAY_BE_DEEP_CHARS = 2 * (MAX_JSON_DEPTH + 1);

/** `guarded` returns null only for an elided line; a line read whole never is. */
const WHOLE_LINE_ELIDED: ClaudeLineResult = { kind: 'invalid', reason: 'unreachable: a whole line was elided' };

/**
 * Values `usage` mode never reads, elided before `JSON.parse` (the value becomes `null`; the key
 * stays, so duplicate keys resolve as in the whole line): tool output (twice: the tool_result's
 * content and `toolUseResult`), tool inputs, texts, thinking, images — most of a transcript's
 * bytes. Everything else is parsed, so a field read here later is never silently missing. The
 * depth of a tool input is checked by the scan's depth bound. The content of an API error's
 * assistant blocks is its message: such a line is read whole (`recordOf` returns null for it).
 */
const USAGE_ELISION: CompiledElision = compileElision({
  keys: {
    toolUseResult: true,
    message: {
      keys: {
        content: {
          items: {
            keys: { content: true, text: true, input: true, thinking: true, signature: true, source: true, data: true },
          },
        },
      },
    },
  },
});

/**
 * Lines shorter than this are decoded and parsed whole, longer ones scanned (`parseClaudeRawLine`).
 * A short line is dense with keys, ids and numbers, which `JSON.parse` reads faster than the
 * byte scan can (a scan and a `JSON.parse` of what it keeps cost about twice a whole parse on
 * assistant lines under 2 KB); the scan pays off on long lines, whose bytes are mostly tool
 * output in long strings crossed by a native search. Measured on copies of real transcripts:
 * at 2 KB both paths cost the same per line. The choice changes no outcome, only the time.
 */
const SCAN_MIN_BYTES = 2048;

/**
 * `parseClaudeLine` of a line as read (its bytes): the same result, cheaper. In `usage` mode a
 * line of `SCAN_MIN_BYTES` or more is read by `parseScannedClaudeLine`; any other line is
 * decoded and parsed whole.
 */
export function parseClaudeRawLine(line: RawLine, content: ContentMode): ClaudeLineResult {
  if (content === 'usage' && line.end - line.start >= SCAN_MIN_BYTES) return parseScannedClaudeLine(line);
  const text = rawLineText(line);
  // `parseClaudeLine` of the text, without its wrapper objects when the line parses (most do); a
  // line that does not (blank, malformed, truncated) takes `parseClaudeLine` for its outcome.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseClaudeLine({ number: line.number, text, terminated: line.terminated }, content);
  }
  return guarded(value, content, false, text.length >= MAY_BE_DEEP_CHARS) ?? WHOLE_LINE_ELIDED;
}

/**
 * `parseClaudeLine(…, 'usage')` of a line read from its bytes (`json-scan.ts`): its structure,
 * numbers and literals are checked, the values in `USAGE_ELISION` are cut, and only the rest is
 * decoded and parsed (`JSON.parse` checks every string kept).
 * - An assistant record (the only kind that carries usage, formats.md §1.3) is also checked
 *   byte for byte, strings included, as `JSON.parse` would: a malformed one takes the text path
 *   and is the same issue as there.
 * - Any other record is read without checking the characters inside the strings that were cut
 *   (tool output, tool inputs, text): a raw control character or a bad escape sequence there is
 *   not reported (the text path would report the line as malformed JSON). What is read from such a
 *   line is exactly what a valid line gives.
 * A line the scan rejects, a line nested deeper than `MAX_JSON_DEPTH`, a kept part that does not
 * parse, and an API error line (its text is in cut blocks) take the text path: same reasons,
 * same records.
 */
export function parseScannedClaudeLine(line: RawLine): ClaudeLineResult {
  const start = rawLineStart(line);
  const end = rawLineEnd(line);
  const scanned = scanJson(line.buffer, start, end, USAGE_ELISION, MAX_JSON_DEPTH, 'structure');
  const value = scanned.kind === 'json' ? parsedOrUndefined(scanned.text) : undefined;
  if (value !== undefined) {
    const assistant = asObject(value)?.['type'] === 'assistant';
    if (!assistant || isJson(line.buffer, start, end, MAX_JSON_DEPTH)) {
      const result = guarded(value, 'usage', true, false);
      if (result !== null) return result;
    }
  }
  return parseClaudeLine({ number: line.number, text: rawLineText(line), terminated: line.terminated }, 'usage');
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `recordOf`, with a depth failure as the line's issue. `mayBeDeep`: false when no value of the
 * line can nest deeper than `MAX_JSON_DEPTH` (a short line; a scanned one, whose depth the scan
 * bounded), so `usage` mode need not walk its tool inputs.
 */
function guarded(value: unknown, content: ContentMode, elided: boolean, mayBeDeep: boolean): ClaudeLineResult | null {
  try {
    return recordOf(value, content, elided, mayBeDeep);
  } catch (error) {
    const reason = tooDeepReason(error);
    if (reason === null) throw error;
    return { kind: 'invalid', reason };
  }
}

/** The record of a parsed line; null when `elided` and the line needs what was elided (an API error's text). */
function recordOf(value: unknown, content: ContentMode, elided: boolean, mayBeDeep: boolean): ClaudeLineResult | null {
  const object = asObject(value);
  if (object === undefined) return { kind: 'invalid', reason: 'not a JSON object' };
  const type = asString(object['type']);
  if (type === undefined) return { kind: 'invalid', reason: 'missing field "type"' };
  const message = asObject(object['message']);
  switch (type) {
    case 'assistant': {
      const malformed = assistantMessageProblem(object['message']);
      if (malformed !== null) return { kind: 'invalid', reason: malformed };
      if (elided && isApiError(object, message)) return null;
      const { record, problem } = assistantRecord(object, message, content, mayBeDeep);
      return { kind: 'record', record, problem };
    }
    case 'user':
      return { kind: 'record', record: userRecord(object, message, content), problem: null };
    case 'system': {
      const subtype = asString(object['subtype']);
      if (subtype === 'compact_boundary') {
        const meta = asObject(object['compactMetadata']);
        return {
          kind: 'record',
          record: {
            ...envelope(object),
            kind: 'compact_boundary',
            trigger: triggerOf(meta?.['trigger']),
            preTokens: countOrNull(meta?.['preTokens']),
            postTokens: countOrNull(meta?.['postTokens']),
          },
          problem: null,
        };
      }
      if (subtype === 'api_error') {
        const text = asString(object['content']) ?? asString(asObject(object['error'])?.['message']) ?? 'API error';
        return { kind: 'record', record: { ...envelope(object), kind: 'api_error', message: text }, problem: null };
      }
      // Bookkeeping and warnings (the 1.0.x "limit reached, now using Sonnet" one included): the
      // request model changes on its own, no event is needed.
      return { kind: 'record', record: ignoredLink(object), problem: null };
    }
    case 'summary': {
      const title = asString(object['summary']);
      return title === undefined
        ? { kind: 'record', record: { kind: 'ignored' }, problem: null }
        : {
            kind: 'record',
            record: { kind: 'title', title, leafUuid: asString(object['leafUuid']) ?? null, fromSummary: true },
            problem: null,
          };
    }
    case 'ai-title':
    case 'custom-title': {
      const title = asString(object['title']) ?? asString(object['aiTitle']) ?? asString(object['customTitle']);
      return title === undefined
        ? { kind: 'record', record: { kind: 'ignored' }, problem: null }
        : { kind: 'record', record: { kind: 'title', title, leafUuid: null, fromSummary: false }, problem: null };
    }
    default:
      if (IGNORED_TYPES.has(type)) return { kind: 'record', record: ignoredLink(object), problem: null };
      return { kind: 'record', record: { kind: 'unknown', type }, problem: null };
  }
}
