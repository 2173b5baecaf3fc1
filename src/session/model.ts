/**
 * The normalized session model (replay.md §2): the one vocabulary shared by every layer after
 * ingest. Vendor formats stay inside their adapter; everything downstream reads these types.
 * Schemas are zod so that adapters, fixtures and files read back from disk are checked at the
 * boundary; after parsing, the inferred types are trusted.
 */
import { z } from 'zod';

/** Log formats cachecost reads. */
export const SourceFormatSchema = z.enum(['freecode', 'claude-code', 'codex', 'opencode', 'openhands', 'swe-agent']);
export type SourceFormat = z.infer<typeof SourceFormatSchema>;

const nonNegInt = z.number().int().nonnegative();

/**
 * Fields every item has. `chars` is the UTF-16 length of the content the provider saw, counted
 * the same way by every adapter, the dataset generator and the replay:
 * - user, summary, system: the text's length;
 * - assistant: text length + Σ over tool calls of (`name.length + argsJson.length`);
 * - tool_result: the output's length (the model-facing output, before any pruning).
 */
const ItemBase = {
  id: z.string().min(1),
  timestampMs: z.number().nullable(),
  /** The content when the log has it; null when only a character count is known. */
  text: z.string().nullable(),
  chars: nonNegInt,
  /** Image parts are counted separately: their size is not text (engine.md §1.6). */
  imageParts: nonNegInt,
  /** Base64 characters of the image parts (what FreeCode's `promptChars` adds for them). */
  imageChars: nonNegInt,
  /**
   * Where the log records a conversation tree (Claude Code `parentUuid`, formats.md §1.6): the id
   * of the item this one follows, null at a root (the session's start, a compaction's summary).
   * A parent other than the item before it is a rewind: the request after it carried the chain
   * through that parent, not the abandoned branch. Absent when the log is one linear thread, or
   * when the parent is not known.
   */
  parentId: z.string().nullable().optional(),
};

export const ToolCallSchema = z.object({
  callId: z.string().min(1),
  name: z.string(),
  /**
   * `JSON.stringify(args)`; counted in the assistant item's `chars`. `''` where a `usage`-mode
   * ingest left the arguments out (`ContentMode`: nothing then reads them).
   */
  argsJson: z.string(),
  /**
   * Set by an ingest that wrote `argsJson` itself with `JSON.stringify` (of a value it read from
   * the log), never by one that kept the log's own text. Such a text serializes back to itself
   * (`JSON.stringify(JSON.parse(argsJson)) === argsJson`), which the replay then need not check
   * (`activityOf`, src/simulate/replay-memo.ts). Absent: not known, checked.
   */
  argsStringified: z.literal(true).optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const UserItemSchema = z.object({
  ...ItemBase,
  kind: z.literal('user'),
  /** null for a real prompt; otherwise what synthesized it (`auto_poke`, `steer`, `image_caption`, …). */
  synthetic: z.string().nullable(),
});

export const AssistantItemSchema = z.object({
  ...ItemBase,
  kind: z.literal('assistant'),
  /** Items of one provider response share it (FreeCode stores one response as several lines). */
  responseId: z.string().nullable(),
  toolCalls: z.array(ToolCallSchema),
  thinkingChars: nonNegInt,
});

export const ToolResultItemSchema = z.object({
  ...ItemBase,
  kind: z.literal('tool_result'),
  callId: z.string().min(1),
  toolName: z.string(),
  failed: z.boolean(),
});

export const SummaryItemSchema = z.object({
  ...ItemBase,
  kind: z.literal('summary'),
});

export const SystemItemSchema = z.object({
  ...ItemBase,
  kind: z.literal('system'),
});

export const ItemSchema = z.discriminatedUnion('kind', [
  UserItemSchema,
  AssistantItemSchema,
  ToolResultItemSchema,
  SummaryItemSchema,
  SystemItemSchema,
]);
export type Item = z.infer<typeof ItemSchema>;
export type ItemKind = Item['kind'];
export type UserItem = z.infer<typeof UserItemSchema>;
export type AssistantItem = z.infer<typeof AssistantItemSchema>;
export type ToolResultItem = z.infer<typeof ToolResultItemSchema>;
export type SummaryItem = z.infer<typeof SummaryItemSchema>;
export type SystemItem = z.infer<typeof SystemItemSchema>;

/**
 * Measured usage of one provider request, normalized so that
 * `promptTokens = uncachedInputTokens + cacheReadTokens + cacheWriteTokens` whatever the
 * provider's convention (pricing.md §1). The 5m/1h write split is null when the log does not
 * say; it is never guessed here.
 */
export const MeasuredUsageSchema = z
  .object({
    promptTokens: nonNegInt,
    uncachedInputTokens: nonNegInt,
    cacheReadTokens: nonNegInt,
    cacheWriteTokens: nonNegInt,
    cacheWrite5mTokens: nonNegInt.nullable(),
    cacheWrite1hTokens: nonNegInt.nullable(),
    outputTokens: nonNegInt,
    /** Reasoning tokens, a subset of `outputTokens`; null when unknown. */
    reasoningTokens: nonNegInt.nullable(),
  })
  .refine((u) => u.promptTokens === u.uncachedInputTokens + u.cacheReadTokens + u.cacheWriteTokens, {
    message: 'promptTokens must equal uncachedInputTokens + cacheReadTokens + cacheWriteTokens',
  })
  .refine(
    (u) =>
      u.cacheWrite5mTokens === null ||
      u.cacheWrite1hTokens === null ||
      u.cacheWrite5mTokens + u.cacheWrite1hTokens === u.cacheWriteTokens,
    { message: 'the 5m/1h write split must add up to cacheWriteTokens' },
  );
export type MeasuredUsage = z.infer<typeof MeasuredUsageSchema>;

/**
 * One provider request. It carried every item before `itemIndex` that was still in context; the
 * items from `itemIndex` on, up to the next request, arrived after it (its response first).
 */
export const RequestSchema = z.object({
  index: nonNegInt,
  itemIndex: nonNegInt,
  model: z.string(),
  provider: z.string().nullable(),
  timestampMs: z.number().nullable(),
  usage: MeasuredUsageSchema.nullable(),
  /** Subagent or sidechain traffic attributed to this session; null for the main agent. */
  agentId: z.string().nullable(),
});
export type Request = z.infer<typeof RequestSchema>;

const EventBase = {
  /** Items before this index were in the session when the event happened. */
  itemIndex: nonNegInt,
  /** Index of the first request after the event (may equal the request count at the end). */
  requestIndex: nonNegInt,
  timestampMs: z.number().nullable(),
};

/** Units of a recorded token count: FreeCode's compaction events hold its own estimate (engine.md §6.6). */
export const TokenUnitSchema = z.enum(['estimate', 'provider']);

export const HarnessEventSchema = z.discriminatedUnion('kind', [
  z.object({
    ...EventBase,
    kind: z.literal('compaction'),
    trigger: z.enum(['auto', 'manual', 'overflow', 'unknown']),
    tokensBefore: nonNegInt.nullable(),
    tokensAfter: nonNegInt.nullable(),
    tokenUnit: TokenUnitSchema,
    /** The summary item the agent inserted, when the log has it. */
    summaryItemId: z.string().nullable(),
  }),
  z.object({
    ...EventBase,
    kind: z.literal('overflow'),
    tokensBefore: nonNegInt.nullable(),
    tokenUnit: TokenUnitSchema,
  }),
  z.object({
    ...EventBase,
    kind: z.literal('hook_block'),
    hookName: z.string(),
    reason: z.string(),
  }),
  z.object({
    ...EventBase,
    kind: z.literal('model_error'),
    errorKind: z.string(),
    message: z.string(),
  }),
  z.object({
    ...EventBase,
    kind: z.literal('subagent'),
    phase: z.enum(['start', 'stop']),
    subagentId: z.string(),
  }),
]);
export type HarnessEvent = z.infer<typeof HarnessEventSchema>;
export type HarnessEventKind = HarnessEvent['kind'];

/**
 * What an ingest issue did to the input. Absent: the line was skipped (line 0: the whole file was
 * not read as written). `repaired`: the line was used with the repair the reason names. The others
 * are notes, not errors (listed by `--verbose`, counted in the summary, never fatal under
 * `--strict`): `usage-not-reported` — a request whose usage is all zero, counted but not priced;
 * `counted-elsewhere` — responses another session already counted (a resumed copy);
 * `fork-replay` — a forked rollout's copy of its parent's history, whose requests are the parent's;
 * `unbilled-web-search` — a response whose provider ran web searches, billed per search and not in
 * tokens: the bill leaves them out and says so.
 */
export const IssueEffectSchema = z.enum([
  'repaired',
  'usage-not-reported',
  'counted-elsewhere',
  'fork-replay',
  'unbilled-web-search',
]);
export type IssueEffect = z.infer<typeof IssueEffectSchema>;

export { NOTE_EFFECTS, isIngestNote } from './ingest-note.js';

/** A skipped or invalid input line, counted in every report (replay.md §2). Line 0 = the whole file. */
export const IngestIssueSchema = z.object({
  file: z.string(),
  line: nonNegInt,
  reason: z.string(),
  effect: IssueEffectSchema.optional(),
  /** Lines this one issue stands for, from `line` on (an unknown record type reported once per file); 1 when absent. */
  lines: z.number().int().positive().optional(),
});

export type IngestIssue = z.infer<typeof IngestIssueSchema>;

/** Per-session totals for formats that record nothing finer (SWE-agent); such a session is not replayed. */
export const SessionTotalsSchema = z.object({
  promptTokens: nonNegInt,
  outputTokens: nonNegInt,
  requests: nonNegInt,
});

export const SessionSchema = z.object({
  id: z.string().min(1),
  source: SourceFormatSchema,
  title: z.string().nullable(),
  project: z.string().nullable(),
  /** Files the session was read from, in the order they were read. */
  files: z.array(z.string()),
  items: z.array(ItemSchema),
  requests: z.array(RequestSchema),
  events: z.array(HarnessEventSchema),
  issues: z.array(IngestIssueSchema),
  parentSessionId: z.string().nullable(),
  totalsOnly: SessionTotalsSchema.nullable(),
});
export type Session = z.infer<typeof SessionSchema>;
