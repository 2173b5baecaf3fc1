/**
 * FreeCode's session store (engine.md §7): one `messages.jsonl` line → a message value, and
 * `meta.json` → the few metadata fields read. Both format generations: writes read as
 * `cacheWriteInputTokens ?? cacheCreationInputTokens` (§7.5), usage absent before 2026-08-05.
 */
import { errorMessage } from '../../session/errors.js';
import { z } from 'zod';
import type { MeasuredUsage } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { describeSchemaError, parseJsonLine } from '../json-line.js';
import type { Line } from '../lines.js';
import { normalizeUsage } from '../usage.js';
import { argumentsText, tooDeepReason } from '../json-text.js';
import { MAX_TIMESTAMP_MS } from '../json-value.js';

/** A part of a stored message; text and code parts are both text the model saw. Texts are null in `sizes` mode. */
export type StorePart =
  | { readonly kind: 'text'; readonly text: string | null; readonly chars: number }
  | {
      readonly kind: 'tool';
      readonly partIndex: number;
      readonly name: string;
      /**
       * The part's `args` written with `JSON.stringify`, or `{}` (never the log's text:
       * `ToolCall.argsStringified`); `''` in `usage` mode (`argumentsText`).
       */
      readonly argsJson: string;
      readonly result: string | null;
      readonly resultChars: number;
    }
  | { readonly kind: 'image'; readonly dataChars: number };

export type StoreMessage = {
  readonly line: number;
  readonly id: string;
  readonly role: 'user' | 'assistant';
  /** `auto_poke`, `steer`, … as written, `image_caption` for the tool-image message of §7.4 step 4; null for a prompt. */
  readonly synthetic: string | null;
  readonly parts: readonly StorePart[];
  readonly timestampMs: number;
  readonly usage: MeasuredUsage | null;
  readonly interrupted: boolean;
  readonly parentId: string | null;
};

export type StoreLineResult =
  | { readonly kind: 'message'; readonly message: StoreMessage; readonly problem: string | null }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'invalid'; readonly reason: string };

const PartSchema = z.object({
  type: z.string(),
  content: z.string().nullish(),
  tool: z.object({ name: z.string(), args: z.unknown().optional() }).nullish(),
  result: z.string().nullish(),
  data: z.string().nullish(),
});

const UsageSchema = z.object({
  inputTokens: z.unknown().optional(),
  outputTokens: z.unknown().optional(),
  cacheReadInputTokens: z.unknown().optional(),
  cacheWriteInputTokens: z.unknown().optional(),
  cacheCreationInputTokens: z.unknown().optional(),
  reasoningTokens: z.unknown().optional(),
});

const MessageSchema = z.object({
  synthetic: z.string().nullish(),
  id: z.string().min(1),
  role: z.string(),
  parts: z.array(z.unknown().optional()),
  timestamp: z.number().min(-MAX_TIMESTAMP_MS).max(MAX_TIMESTAMP_MS).transform(Math.trunc),
  usage: UsageSchema.nullish(),
  interrupted: z.boolean().nullish(),
  parentId: z.string().nullish(),
});

/** The tool-image message FreeCode appends after tools that returned images (engine.md §7.4 step 4). */
const IMAGE_CAPTION = /^(?:Image from the tool call above:|\d+ images from the tool calls above:)$/;

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type PartReading = {
  readonly part: StorePart | null;
  readonly problem: string | null;
  /** A text part's content even when it is not kept (to recognise the image caption). */
  readonly text?: string;
};

function parsePart(raw: unknown, partIndex: number, content: ContentMode): PartReading {
  const parsed = PartSchema.safeParse(raw);
  if (!parsed.success) return { part: null, problem: describeSchemaError(`part ${partIndex}`, parsed.error) };
  const p = parsed.data;
  switch (p.type) {
    case 'text':
    case 'code': {
      const text = p.content ?? '';
      return { part: { kind: 'text', text: kept(text, content), chars: text.length }, problem: null, text };
    }
    case 'image':
      return { part: { kind: 'image', dataChars: (p.data ?? '').length }, problem: null };
    case 'tool': {
      if (p.tool === null || p.tool === undefined)
        return { part: null, problem: `part ${partIndex}: tool part without "tool"` };
      const result = p.result ?? '';
      return {
        part: {
          kind: 'tool',
          partIndex,
          name: p.tool.name,
          // FreeCode replaces args that are not a plain object by {} when it loads history (§7.3).
          argsJson: argumentsText(isPlainObject(p.tool.args) ? p.tool.args : {}, content),
          result: kept(result, content),
          resultChars: result.length,
        },
        problem: null,
      };
    }
    default:
      return { part: null, problem: `part ${partIndex}: unknown part type "${p.type}"` };
  }
}

/** Parses one `messages.jsonl` line; bad parts are dropped from the message and reported as its problem. */
export function parseStoreLine(line: Line, content: ContentMode = 'text'): StoreLineResult {
  try {
    return parseStoreLineUnguarded(line, content);
  } catch (error) {
    const reason = tooDeepReason(error);
    if (reason === null) throw error;
    return { kind: 'invalid', reason };
  }
}

function parseStoreLineUnguarded(line: Line, content: ContentMode): StoreLineResult {
  const json = parseJsonLine(line);
  if (json.kind === 'blank') return { kind: 'ignored' };
  if (json.kind === 'invalid') return { kind: 'invalid', reason: json.reason };
  const parsed = MessageSchema.safeParse(json.value);
  if (!parsed.success) return { kind: 'invalid', reason: describeSchemaError('message', parsed.error) };
  const m = parsed.data;
  if (m.role !== 'user' && m.role !== 'assistant')
    return { kind: 'invalid', reason: `message: unexpected role "${m.role}"` };

  const problems: string[] = [];
  const parts: StorePart[] = [];
  let captionText = false;
  m.parts.forEach((raw, index) => {
    const { part, problem, text } = parsePart(raw, index, content);
    if (index === 0 && m.role === 'user' && text !== undefined) captionText = IMAGE_CAPTION.test(text);
    if (part !== null) parts.push(part);
    if (problem !== null) problems.push(problem);
  });

  let usage: MeasuredUsage | null = null;
  if (m.usage !== null && m.usage !== undefined) {
    const u = m.usage;
    const reading = normalizeUsage({
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: u.cacheReadInputTokens,
      cacheWriteTokens: u.cacheWriteInputTokens ?? u.cacheCreationInputTokens,
      reasoningTokens: u.reasoningTokens,
    });
    usage = reading.usage;
    if (reading.problem !== null) problems.push(reading.problem);
  }

  const isCaption = captionText && parts.some((part) => part.kind === 'image');
  const message: StoreMessage = {
    line: line.number,
    id: m.id,
    role: m.role,
    synthetic: m.synthetic ?? (isCaption ? 'image_caption' : null),
    parts,
    timestampMs: m.timestamp,
    usage,
    interrupted: m.interrupted === true,
    parentId: m.parentId ?? null,
  };
  return { kind: 'message', message, problem: problems.length > 0 ? problems.join('; ') : null };
}

/** The `meta.json` fields cachecost reads (engine.md §7.2). */
export type StoreMeta = {
  readonly id: string | null;
  readonly title: string | null;
  readonly projectPath: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  /** Fork source (`parentId`), not a subagent parent. */
  readonly parentId: string | null;
  readonly leafId: string | null;
};

export const EMPTY_META: StoreMeta = {
  id: null,
  title: null,
  projectPath: null,
  provider: null,
  model: null,
  parentId: null,
  leafId: null,
};

const MetaSchema = z.object({
  id: z.string().nullish(),
  title: z.string().nullish(),
  projectPath: z.string().nullish(),
  provider: z.string().nullish(),
  model: z.string().nullish(),
  parentId: z.string().nullish(),
  leafId: z.string().nullish(),
});

export type MetaResult =
  { readonly kind: 'meta'; readonly meta: StoreMeta } | { readonly kind: 'invalid'; readonly reason: string };

/** Parses the text of a `meta.json` (a small file, read whole). */
export function parseMeta(content: string): MetaResult {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return { kind: 'invalid', reason: `meta.json: malformed JSON (${errorMessage(error)})` };
  }
  const parsed = MetaSchema.safeParse(value);
  if (!parsed.success) return { kind: 'invalid', reason: describeSchemaError('meta.json', parsed.error) };
  const m = parsed.data;
  return {
    kind: 'meta',
    meta: {
      id: m.id ?? null,
      title: m.title ?? null,
      projectPath: m.projectPath ?? null,
      provider: m.provider ?? null,
      model: m.model ?? null,
      parentId: m.parentId ?? null,
      leafId: m.leafId ?? null,
    },
  };
}

/**
 * The active path of a store for the model view (engine.md §7.6): the whole file when there is no
 * `leafId` and no `parentId`; otherwise walk from the leaf (meta `leafId`, else the last line) to
 * the root, each entry's parent being its `parentId` or else the previous line; a missing parent
 * ends the walk. Returned root → leaf.
 */
export function activePath(messages: readonly StoreMessage[], leafId: string | null): readonly StoreMessage[] {
  if (leafId === null && messages.every((message) => message.parentId === null)) return messages;
  const indexById = new Map<string, number>();
  messages.forEach((message, index) => indexById.set(message.id, index));
  // A leafId naming no line (a hand-edited or stale meta.json) falls back to the last line; the builder reports it.
  let index = leafId === null ? messages.length - 1 : (indexById.get(leafId) ?? messages.length - 1);
  const path: StoreMessage[] = [];
  const visited = new Set<number>();
  while (index >= 0 && !visited.has(index)) {
    const message = messages[index];
    if (message === undefined) break;
    visited.add(index);
    path.push(message);
    index = message.parentId === null ? index - 1 : (indexById.get(message.parentId) ?? -1);
  }
  return path.reverse();
}
