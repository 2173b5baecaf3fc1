/**
 * The session store as the compaction sees it (engine.md §2.4, §7.6): the provider-facing history
 * (`messages.jsonl` on the active path) and the one write a compaction makes.
 */
import { objectArrayCopy } from '../session/packed-array.js';

export interface SessionStore<M> {
  getMessages(): readonly M[];
  /** Rewrites the whole history (FreeCode's only compaction write, §7.6). */
  replaceMessages(messages: readonly M[]): void;
}

/**
 * A session store held in an array (for the replay and tests). An array `getMessages` returned is
 * never changed afterwards (callers may keep it); writes copy it first, once (copy on write), so a
 * run of appends with no read between them costs one copy, not one per append: the replay appends
 * every item of a session of 10^5 items.
 */
export class ArraySessionStore<M> implements SessionStore<M> {
  private messages: M[];
  /** Whether `messages` was handed out by `getMessages` (then it is copied before a write). */
  private shared = false;
  private replaceCountValue = 0;

  constructor(initial: readonly M[] = []) {
    // Of one elements kind from the start (the copy on write below keeps it): `append` is hot.
    this.messages = objectArrayCopy(initial);
  }

  getMessages(): readonly M[] {
    this.shared = true;
    return this.messages;
  }

  /**
   * The history without handing it out: valid until the next write, which may change it in place.
   * For a caller that reads it at once and keeps no reference to the array (it may keep the
   * messages); `getMessages` for one that keeps it.
   */
  peekMessages(): readonly M[] {
    return this.messages;
  }

  /** The message at `index` (negative: from the end), without handing the history out. */
  at(index: number): M | undefined {
    return this.messages.at(index);
  }

  get length(): number {
    return this.messages.length;
  }

  replaceMessages(messages: readonly M[]): void {
    this.messages = objectArrayCopy(messages);
    this.shared = false;
    this.replaceCountValue += 1;
  }

  /** Appends one message (FreeCode's `appendMessage`). */
  append(message: M): void {
    this.writable().push(message);
  }

  /** Puts `message` in place of the one at `index` (a tool result joining the message of its call). */
  replaceAt(index: number, message: M): void {
    if (index < 0 || index >= this.messages.length) throw new RangeError(`no message at ${index}`);
    this.writable()[index] = message;
    this.replaceCountValue += 1;
  }

  get replaceCount(): number {
    return this.replaceCountValue;
  }

  private writable(): M[] {
    if (this.shared) {
      this.messages = [...this.messages];
      this.shared = false;
    }
    return this.messages;
  }
}
