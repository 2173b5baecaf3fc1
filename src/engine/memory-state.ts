/**
 * `MemoryService`'s persisted state, `memory.json` (engine.md §4.2): the estimated transcript, the
 * chain of summaries and the running token estimate. Schemas check a state read back by a store.
 */
import type { MemoryState } from './memory-state-schema.js';

export type { CompactionSummary, MemoryMessage, MemoryRole, MemoryState } from './memory-state-schema.js';

/** The state a new session (or an unreadable `memory.json`) starts from (§4.1, §4.2). */
export function freshMemoryState(sessionId: string): MemoryState {
  return { sessionId, messages: [], summaries: [], tokenCount: 0, totalCompactions: 0 };
}
