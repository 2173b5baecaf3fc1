/**
 * The injected persistence of `MemoryService` (engine.md §4.1). FreeCode writes `memory.json`
 * atomically (temp file + rename) after every change; an implementation must give the same
 * all-or-nothing semantics, and `load` returns undefined for a missing or unreadable state.
 */
import type { MemoryState } from './memory-state.js';

export interface MemoryStore {
  load(sessionId: string): MemoryState | undefined;
  save(state: MemoryState): void;
}

/** A store held in memory (for the replay and tests); `save` replaces the whole state at once. */
export class InMemoryMemoryStore implements MemoryStore {
  private readonly states = new Map<string, MemoryState>();
  private saveCountValue = 0;

  load(sessionId: string): MemoryState | undefined {
    return this.states.get(sessionId);
  }

  save(state: MemoryState): void {
    this.states.set(state.sessionId, state);
    this.saveCountValue += 1;
  }

  /** How many times `save` ran (FreeCode rewrites the file on every recorded message). */
  get saveCount(): number {
    return this.saveCountValue;
  }
}

/** A store that keeps nothing: every service starts fresh. */
export const NULL_MEMORY_STORE: MemoryStore = Object.freeze({
  load: () => undefined,
  save: () => undefined,
});
