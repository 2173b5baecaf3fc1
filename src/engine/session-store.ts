/**
 * The session store as the compaction sees it (engine.md §2.4, §7.6): the provider-facing history
 * (`messages.jsonl` on the active path) and the one write a compaction makes.
 */

export interface SessionStore<M> {
  getMessages(): readonly M[];
  /** Rewrites the whole history (FreeCode's only compaction write, §7.6). */
  replaceMessages(messages: readonly M[]): void;
}

/** A session store held in an array (for the replay and tests). */
export class ArraySessionStore<M> implements SessionStore<M> {
  private messages: readonly M[];
  private replaceCountValue = 0;

  constructor(initial: readonly M[] = []) {
    this.messages = [...initial];
  }

  getMessages(): readonly M[] {
    return this.messages;
  }

  replaceMessages(messages: readonly M[]): void {
    this.messages = [...messages];
    this.replaceCountValue += 1;
  }

  /** Appends one message (FreeCode's `appendMessage`). */
  append(message: M): void {
    this.messages = [...this.messages, message];
  }

  get replaceCount(): number {
    return this.replaceCountValue;
  }
}
