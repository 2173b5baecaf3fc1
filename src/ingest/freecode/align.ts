/**
 * Joining the session store to the rollout (engine.md §7.4, §7.7). The rollout is complete but
 * content-poor; the store has full text but, after a compaction, only the tail. Each rollout
 * response implies the store lines FreeCode writes for it (a text line when the text is non-empty
 * or there are no tool calls, then one line per tool call, usage on the first, §7.4); the store's
 * assistant lines are matched to those expected lines from the end, by order, shape and equal
 * usage numbers. Pure: no I/O.
 */
import type { MeasuredUsage } from '../../session/model.js';
import { mapPacked } from '../../session/packed-array.js';
import type { StoreMessage } from './store.js';
import type { RolloutResponse } from './timeline.js';

/** The store lines found for one rollout response (null where the store no longer has the line). */
export type ResponseMatch = { readonly text: StoreMessage | null; readonly calls: readonly (StoreMessage | null)[] };

export type Alignment = {
  readonly matches: ReadonlyMap<RolloutResponse, ResponseMatch>;
  /** Store assistant lines that match nothing in the rollout (the oldest ones, before the matched run). */
  readonly unmatched: readonly StoreMessage[];
};

type Slot = { readonly response: RolloutResponse; readonly first: boolean } & (
  { readonly kind: 'text' } | { readonly kind: 'call'; readonly callIndex: number; readonly name: string }
);

/** Tool call names of a response in call order: the response's own list, else the recorded calls. */
export function toolCallNamesOf(response: RolloutResponse): readonly string[] {
  return response.toolCallNames ?? mapPacked(response.calls, (call) => call.tool);
}

/** True when FreeCode stored a text line for the response (§7.4 steps 1 and 5). */
export function hasTextLine(response: RolloutResponse): boolean {
  return response.textChars > 0 || toolCallNamesOf(response).length === 0;
}

function expectedSlots(responses: readonly RolloutResponse[]): Slot[] {
  const slots: Slot[] = [];
  for (const response of responses) {
    let first = true;
    if (hasTextLine(response)) {
      slots.push({ response, first, kind: 'text' });
      first = false;
    }
    toolCallNamesOf(response).forEach((name, callIndex) => {
      slots.push({ response, first, kind: 'call', callIndex, name });
      first = false;
    });
  }
  return slots;
}

function sameUsage(a: MeasuredUsage, b: MeasuredUsage): boolean {
  return (
    a.promptTokens === b.promptTokens &&
    a.outputTokens === b.outputTokens &&
    a.cacheReadTokens === b.cacheReadTokens &&
    a.cacheWriteTokens === b.cacheWriteTokens
  );
}

function textLength(message: StoreMessage): number {
  let length = 0;
  for (const part of message.parts) if (part.kind === 'text') length += part.chars;
  return length;
}

function slotMatches(slot: Slot, message: StoreMessage): boolean {
  if (message.usage !== null) {
    if (!slot.first) return false;
    if (slot.response.usage !== null && !sameUsage(slot.response.usage, message.usage)) return false;
  }
  const tools = message.parts.filter((part) => part.kind === 'tool');
  if (slot.kind === 'text') return tools.length === 0 && textLength(message) === slot.response.textChars;
  const tool = tools[0];
  return tools.length === 1 && tool !== undefined && tool.name === slot.name && textLength(message) === 0;
}

/** Candidate end positions tried before settling for the longest partial run (bounds the search). */
const MAX_CANDIDATES = 64;

/**
 * Aligns the store's assistant lines (active path, in order) with the rollout's responses: the
 * last store line is matched to the latest expected line it fits, then both walk backwards while
 * lines keep fitting. The first candidate that covers every store line wins; otherwise the longest
 * run among the latest candidates.
 */
export function alignStore(responses: readonly RolloutResponse[], storeAssistant: readonly StoreMessage[]): Alignment {
  const slots = expectedSlots(responses);
  const last = storeAssistant[storeAssistant.length - 1];
  let best = { end: -1, length: 0 };
  if (last !== undefined) {
    let candidates = 0;
    for (let end = slots.length - 1; end >= 0 && candidates < MAX_CANDIDATES; end -= 1) {
      const slot = slots[end];
      if (slot === undefined || !slotMatches(slot, last)) continue;
      candidates += 1;
      let length = 1;
      while (length < storeAssistant.length && length <= end) {
        const s = slots[end - length];
        const m = storeAssistant[storeAssistant.length - 1 - length];
        if (s === undefined || m === undefined || !slotMatches(s, m)) break;
        length += 1;
      }
      if (length > best.length) best = { end, length };
      if (length === storeAssistant.length) break;
    }
  }

  const byResponse = new Map<RolloutResponse, { text: StoreMessage | null; calls: (StoreMessage | null)[] }>();
  for (let k = 0; k < best.length; k += 1) {
    const slot = slots[best.end - k];
    const message = storeAssistant[storeAssistant.length - 1 - k];
    if (slot === undefined || message === undefined) continue;
    let entry = byResponse.get(slot.response);
    if (entry === undefined) {
      entry = { text: null, calls: mapPacked(toolCallNamesOf(slot.response), () => null) };
      byResponse.set(slot.response, entry);
    }
    if (slot.kind === 'text') entry.text = message;
    else entry.calls[slot.callIndex] = message;
  }
  return { matches: byResponse, unmatched: storeAssistant.slice(0, storeAssistant.length - best.length) };
}
