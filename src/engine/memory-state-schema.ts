/**
 * The zod schemas of `MemoryService`'s persisted state (`memory-state.ts`, engine.md §4.2), which
 * check a state read back by a store (`parseMemoryState`). Apart from `memory-state.ts` so that a
 * replay, whose states never leave memory, neither builds them nor loads zod.
 */
import { z } from 'zod';

export const MemoryRoleSchema = z.enum(['system', 'user', 'assistant']);
export type MemoryRole = z.infer<typeof MemoryRoleSchema>;

export const MemoryMessageSchema = z.object({
  id: z.string(),
  role: MemoryRoleSchema,
  content: z.string(),
  /** Epoch ms. */
  timestamp: z.number(),
  /** `estimateTokenCount(content)`. */
  tokenCount: z.number(),
});
export type MemoryMessage = z.infer<typeof MemoryMessageSchema>;

export const CompactionSummarySchema = z.object({
  id: z.string(),
  /** Epoch ms. */
  createdAt: z.number(),
  originalMessageCount: z.number(),
  originalTokenCount: z.number(),
  summaryTokenCount: z.number(),
  content: z.string(),
});
export type CompactionSummary = z.infer<typeof CompactionSummarySchema>;

export const MemoryStateSchema = z.object({
  sessionId: z.string(),
  messages: z.array(MemoryMessageSchema),
  /** Every summary ever produced, oldest first; only the last reaches the model (§3.4). */
  summaries: z.array(CompactionSummarySchema),
  /** Running estimate, in tokens. */
  tokenCount: z.number(),
  totalCompactions: z.number(),
  /** Epoch ms of the last compaction. */
  lastCompactionAt: z.number().optional(),
});
export type MemoryState = z.infer<typeof MemoryStateSchema>;

/**
 * Reads a parsed `memory.json` value: the state when it has the §4.2 shape, else undefined, which
 * the service treats as "start fresh" exactly like FreeCode's JSON parse failure (§4.1).
 */
export function parseMemoryState(json: unknown): MemoryState | undefined {
  const parsed = MemoryStateSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
