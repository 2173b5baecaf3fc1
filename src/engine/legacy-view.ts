/**
 * The legacy provider-facing history, worked out call after call: the removed time-based
 * microcompact (engine.md §5.7) then the sliding 1,000-character truncation (§5.6 "History"), as
 * `slidingLegacyTruncate(applyMicrocompact(history, decision, clearedMemo), keep, cap, slidingMemo)`
 * shows them, the same message objects in the same order. A replay shows the same growing history
 * on every request: each call here looks only at the messages after the part its input shares
 * (by identity) with the last call's, and at the earlier ones whose recency changed (the sliding
 * rule spares the most recent responses, so a message turns "old" when newer responses arrive),
 * instead of mapping the whole history twice per request.
 */
import { cutTo, emptyObjectArray } from '../session/packed-array.js';
import type { HistoryMessage } from './history-message.js';
import type { MicrocompactDecision } from './microcompact.js';
import { microcompactShownMessage } from './microcompact.js';
import type { SlidingMemo } from './sliding-prune.js';
import { slidingShownMessage } from './sliding-prune.js';

export class LegacyHistoryView<M extends HistoryMessage> {
  /** The last call's input and what it showed of each message. */
  private readonly input: M[] = emptyObjectArray();
  private readonly output: M[] = emptyObjectArray();
  /** Indexes in `input` of the assistant messages of each response id (ascending). */
  private readonly byResponse = new Map<string, number[]>();
  /** The last call's recent responses and recent assistant messages without a response id (`slidingLegacyTruncate`'s). */
  private recentResponses = new Set<string>();
  private recentMessages = new Set<number>();
  private decision: MicrocompactDecision | null = null;
  private clearedMemo: WeakMap<HistoryMessage, HistoryMessage> | undefined;

  constructor(
    private readonly keepRecentResponses: number,
    private readonly capChars: number,
    private readonly slidingMemo?: SlidingMemo,
  ) {}

  /**
   * The history as shown under `decision` (with its memo, as `applyMicrocompact` takes them), then
   * truncated. The list returned is the caller's own.
   */
  show(
    messages: readonly M[],
    decision: MicrocompactDecision,
    clearedMemo?: WeakMap<HistoryMessage, HistoryMessage>,
  ): M[] {
    const previous = this.decision;
    const same =
      previous !== null &&
      ((decision.kind === 'not-idle' && previous.kind === 'not-idle') ||
        (decision === previous && clearedMemo === this.clearedMemo));
    if (!same) this.reset();
    this.decision = decision;
    this.clearedMemo = clearedMemo;
    const input = this.input;
    const output = this.output;
    const limit = Math.min(input.length, messages.length);
    let common = 0;
    while (common < limit && input[common] === messages[common]) common += 1;
    // The last input's messages after `common` leave (each response's indexes ascend: popped from the end).
    for (let i = input.length - 1; i >= common; i--) {
      const message = input[i];
      if (message?.role !== 'assistant' || message.responseId === undefined) continue;
      const list = this.byResponse.get(message.responseId);
      list?.pop();
      if (list?.length === 0) this.byResponse.delete(message.responseId);
    }
    cutTo(input, common);
    cutTo(output, common);

    // The recent responses of this history, as `slidingLegacyTruncate` finds them.
    const responses = new Set<string>();
    const singles = new Set<number>();
    for (let i = messages.length - 1; i >= 0 && responses.size + singles.size < this.keepRecentResponses; i--) {
      const message = messages[i];
      if (message?.role !== 'assistant') continue;
      if (message.responseId === undefined) singles.add(i);
      else responses.add(message.responseId);
    }
    // Kept messages whose recency changed are shown anew.
    for (const id of this.recentResponses)
      if (!responses.has(id)) this.refresh(this.byResponse.get(id), responses, singles);
    for (const id of responses)
      if (!this.recentResponses.has(id)) this.refresh(this.byResponse.get(id), responses, singles);
    for (const i of this.recentMessages) if (!singles.has(i) && i < common) this.refreshAt(i, responses, singles);
    for (const i of singles) if (!this.recentMessages.has(i) && i < common) this.refreshAt(i, responses, singles);

    for (let i = common; i < messages.length; i++) {
      const message = messages[i];
      if (message === undefined) throw new Error('invariant: a history has no holes');
      input.push(message);
      if (message.role === 'assistant' && message.responseId !== undefined) {
        const list = this.byResponse.get(message.responseId);
        if (list === undefined) this.byResponse.set(message.responseId, [i]);
        else list.push(i);
      }
      output.push(this.shown(message, i, responses, singles));
    }
    this.recentResponses = responses;
    this.recentMessages = singles;
    return output.slice();
  }

  private reset(): void {
    this.input.length = 0;
    this.output.length = 0;
    this.byResponse.clear();
    this.recentResponses = new Set();
    this.recentMessages = new Set();
  }

  private refresh(indexes: readonly number[] | undefined, responses: Set<string>, singles: Set<number>): void {
    if (indexes === undefined) return;
    for (const i of indexes) this.refreshAt(i, responses, singles);
  }

  private refreshAt(i: number, responses: Set<string>, singles: Set<number>): void {
    const message = this.input[i];
    if (message !== undefined) this.output[i] = this.shown(message, i, responses, singles);
  }

  private shown(message: M, index: number, responses: Set<string>, singles: Set<number>): M {
    const cleared = microcompactShownMessage(message, this.decision ?? { kind: 'not-idle' }, this.clearedMemo);
    const old = !(message.responseId === undefined ? singles.has(index) : responses.has(message.responseId));
    return slidingShownMessage(cleared, old, this.capChars, this.slidingMemo);
  }
}
