/**
 * FreeCode's compaction working memory, `memory/<id>/memory.json` (engine.md §4.2, §12.3): a small
 * JSON file read whole. Its `summaries` (oldest first, with content) are the summary items of
 * compactions; its `messages` hold the prompt text of user messages the store may have lost.
 */
import { errorMessage } from '../../session/errors.js';
import { z } from 'zod';
import { describeSchemaError } from '../json-line.js';
import { MAX_TIMESTAMP_MS } from '../json-value.js';

export type MemorySummary = {
  readonly id: string;
  readonly createdAtMs: number;
  readonly content: string;
  readonly summaryTokenCount: number | null;
};

export type MemoryUserMessage = { readonly content: string; readonly timestampMs: number };

export type MemoryFile = {
  readonly summaries: readonly MemorySummary[];
  /** User entries of the current memory transcript (prompts and steers, no images, §4.3). */
  readonly userMessages: readonly MemoryUserMessage[];
};

export type MemoryResult =
  | { readonly kind: 'memory'; readonly memory: MemoryFile; readonly problems: readonly string[] }
  | { readonly kind: 'invalid'; readonly reason: string };

const SummarySchema = z.object({
  id: z.string(),
  createdAt: z.number().min(-MAX_TIMESTAMP_MS).max(MAX_TIMESTAMP_MS).transform(Math.trunc),
  content: z.string(),
  summaryTokenCount: z.number().int().nonnegative().nullish(),
});

const MessageSchema = z.object({
  role: z.string(),
  content: z.string(),
  timestamp: z.number().min(-MAX_TIMESTAMP_MS).max(MAX_TIMESTAMP_MS).transform(Math.trunc),
});

const FileSchema = z.object({
  summaries: z.array(z.unknown()).nullish(),
  messages: z.array(z.unknown()).nullish(),
});

/** Parses the text of a `memory.json`; a bad entry is dropped and named in `problems`, the rest is kept. */
export function parseMemory(content: string): MemoryResult {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return { kind: 'invalid', reason: `memory.json: malformed JSON (${errorMessage(error)})` };
  }
  const file = FileSchema.safeParse(value);
  if (!file.success) return { kind: 'invalid', reason: describeSchemaError('memory.json', file.error) };
  const problems: string[] = [];
  const summaries: MemorySummary[] = [];
  (file.data.summaries ?? []).forEach((raw, index) => {
    const parsed = SummarySchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(describeSchemaError(`memory.json summaries[${index}]`, parsed.error));
      return;
    }
    const s = parsed.data;
    summaries.push({
      id: s.id,
      createdAtMs: s.createdAt,
      content: s.content,
      summaryTokenCount: s.summaryTokenCount ?? null,
    });
  });
  const userMessages: MemoryUserMessage[] = [];
  (file.data.messages ?? []).forEach((raw, index) => {
    const parsed = MessageSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(describeSchemaError(`memory.json messages[${index}]`, parsed.error));
      return;
    }
    if (parsed.data.role === 'user')
      userMessages.push({ content: parsed.data.content, timestampMs: parsed.data.timestamp });
  });
  return { kind: 'memory', memory: { summaries, userMessages }, problems };
}
