/**
 * The provider-facing history of the replay (replay.md §4 steps 1–3): normalized items become
 * the engine's history messages (FreeCode's store shape, engine.md §7.3: a user message, or an
 * assistant message whose tool parts carry their results), and a pruned history renders as
 * prompt segments with stable identities and token sizes.
 */
import type { HistoryMessage, HistoryPart, ToolResultPart } from '../engine/history-message.js';
import { isToolResultPart } from '../engine/history-message.js';
import type { Item } from '../session/model.js';
import { cutTo, emptyObjectArray, mapPacked } from '../session/packed-array.js';
import type { TokenCalibration } from './calibrate.js';
import { tokensForChars } from './calibrate.js';
import type { Segment } from './cache-model.js';

/** A text-less placeholder stands in for content the log only counted (its length is what matters). */
function placeholder(chars: number): string {
  return chars <= 0 ? '' : ' '.repeat(chars);
}

/** A tool part as the replay keeps it: the engine's shape plus the full result's length. */
export interface ReplayToolPart extends ToolResultPart {
  /** Length of the full (unpruned) result, to recognise a rendered replacement. */
  readonly fullChars: number;
  /** Whether the tool call failed (the memory transcript renders it `-> failed:`). */
  readonly failed: boolean;
  /** Set when a tool-result editor replaced the result (policies/): names the replacement's segment. */
  readonly editedAs?: string;
}

/** A history message with what the replay needs to size and summarize it. */
export interface ReplayMessage extends HistoryMessage {
  readonly role: 'user' | 'assistant';
  readonly itemIndex: number;
  /** Characters of the message itself: a user's text, an assistant's text + tool calls (model.ts). */
  readonly ownChars: number;
  /** Image parts of a user message, sized separately (engine.md §1.6). */
  readonly imageParts: number;
  /** The message text (a placeholder of the right length when the log has only a count). */
  readonly text: string;
  readonly synthetic: string | null;
  /** Reloaded from the store after its run (engine.md §5.6): serialized anew, so a different segment. */
  readonly reloaded?: boolean | undefined;
}

/**
 * `message` with other parts (and `reloaded` when given). Every replay message is built with the
 * same properties in the same order (`messageForItem`'s), never spread from another: a spread copy
 * gets an object shape of its own, and the renderer and the cache model, which read every message
 * of every send, then see several shapes and are optimized again and again.
 */
export function replayMessageWith(
  message: ReplayMessage,
  parts: ReplayMessage['parts'],
  reloaded: boolean | undefined = message.reloaded,
): ReplayMessage {
  return {
    id: message.id,
    role: message.role,
    parts,
    responseId: message.responseId,
    timestampMs: message.timestampMs,
    itemIndex: message.itemIndex,
    ownChars: message.ownChars,
    imageParts: message.imageParts,
    text: message.text,
    synthetic: message.synthetic,
    reloaded,
  };
}

/** Tokens charged per image part: the provider counts images, the log counts base64 (engine.md §1.6). */
export const IMAGE_PART_TOKENS = 1_600;

/** The history message for a user or assistant item; tool results are attached later by call id. */
export function messageForItem(item: Item, itemIndex: number): ReplayMessage | null {
  switch (item.kind) {
    case 'user':
      return {
        id: item.id,
        role: 'user',
        parts: [{ type: 'text' }],
        responseId: undefined,
        timestampMs: item.timestampMs ?? undefined,
        itemIndex,
        ownChars: item.chars,
        imageParts: item.imageParts,
        text: item.text ?? placeholder(item.chars),
        synthetic: item.synthetic,
        reloaded: undefined,
      };
    case 'assistant': {
      // One loop, no `map` or spread: an empty `toolCalls` is an array of another kind than a full
      // one, and every kind seen here made this function be optimized again.
      const parts: HistoryPart[] = [{ type: 'text' }];
      let callChars = 0;
      for (const call of item.toolCalls) {
        const part: ReplayToolPart = {
          type: 'tool',
          id: call.callId,
          name: call.name,
          args: call.argsJson,
          result: '',
          fullChars: 0,
          failed: false,
        };
        parts.push(part);
        callChars += call.name.length + call.argsJson.length;
      }
      const textChars = Math.max(0, item.chars - callChars);
      return {
        id: item.id,
        role: 'assistant',
        parts,
        responseId: item.responseId ?? item.id,
        timestampMs: item.timestampMs ?? undefined,
        itemIndex,
        ownChars: item.chars,
        imageParts: 0,
        text: item.text ?? placeholder(textChars),
        synthetic: null,
        reloaded: undefined,
      };
    }
    case 'tool_result':
    case 'summary':
    case 'system':
      return null;
    default: {
      const unreachable: never = item;
      return unreachable;
    }
  }
}

/** The message with the result of call `callId` filled in, or null when it has no such call. */
export function withToolResult(
  message: ReplayMessage,
  callId: string,
  result: string,
  failed: boolean,
): ReplayMessage | null {
  let found = false;
  const parts = mapPacked(message.parts, (part) => {
    if (!isToolResultPart(part) || part.id !== callId) return part;
    found = true;
    const replayPart: ReplayToolPart = { ...(part as ReplayToolPart), result, fullChars: result.length, failed };
    return replayPart;
  });
  return found ? replayMessageWith(message, parts) : null;
}

/** The text of a tool-result item (a placeholder of its length when the log has only a count). */
export function toolResultText(item: Item & { kind: 'tool_result' }): string {
  return item.text ?? placeholder(item.chars);
}

/** FreeCode's session block around the latest summary (engine.md §5.8). */
export const SUMMARY_BLOCK_PREFIX = 'Compacted session summary:\n';

export type SummaryBlock = {
  readonly id: string;
  readonly chars: number;
  /**
   * Set when the compaction restarted the log's chain: which restart it was (1 = the first). The
   * context the agent re-attached then, which the log does not show, is sized by the calibration
   * (`TokenCalibration.restoredTokens[restart - 1]`), like every other segment.
   */
  readonly restart?: number;
};

/**
 * What a send shows, before it is sized: the model (its static block), the summary block and the
 * visible history, and the prompt rendered from them under the replay's calibration, or null where
 * the walk is recorded to be sized later under each calibration (`recorded-trace.ts`).
 */
export type ReplayPrompt = {
  readonly model: string;
  readonly summary: SummaryBlock | null;
  readonly visible: readonly ReplayMessage[];
  readonly rendered: RenderedPrompt | null;
};

/** The static block's segment id for a model. */
export function staticBlockIdOf(model: string): string {
  return `static:${model}`;
}

/** A rendered prompt: its segments and what the calibration reads of it. */
export type RenderedPrompt = {
  readonly segments: Segment[];
  readonly promptTokens: number;
  /** Σ characters after the static block (summary and visible items). */
  readonly visibleChars: number;
  /** Number of sized units after the static block (each ceil'd separately). */
  readonly visibleUnits: number;
  /** Fixed tokens that are not characters (images). */
  readonly fixedTokens: number;
};

/** What one visible message (or the head of a prompt) contributes: its segments and what the calibration reads of them. */
export type MessageRender = {
  readonly segments: readonly Segment[];
  readonly tokens: number;
  readonly chars: number;
  readonly units: number;
  readonly fixedTokens: number;
};

/**
 * The segment id of each tool result shown whole (`<call id>=`), by call id: made once per call
 * and shared by the renderers of every calibration (a session is sized under ~4), instead of a new
 * string per render; equal ids are then one string, which the cache trie compares by reference.
 */
export type WholeResultIds = Map<string, string>;

function renderMessage(
  message: ReplayMessage,
  calibration: TokenCalibration,
  reloadIds: boolean,
  wholeIds: WholeResultIds,
): MessageRender {
  const imageTokens = message.imageParts * IMAGE_PART_TOKENS;
  const ownTokens = tokensForChars(message.ownChars, calibration) + imageTokens;
  const segments: Segment[] = [
    { id: reloadIds && message.reloaded === true ? `${message.id}@reloaded` : message.id, tokens: ownTokens },
  ];
  let tokens = ownTokens;
  let chars = message.ownChars;
  let units = 1;
  for (const part of message.parts) {
    if (!isToolResultPart(part)) continue;
    const partChars = part.result.length;
    const partTokens = tokensForChars(partChars, calibration);
    const { fullChars, editedAs } = part as ReplayToolPart;
    let id: string;
    if (editedAs !== undefined) id = `${part.id}!${editedAs}`;
    else if (partChars !== fullChars) id = `${part.id}~${partChars}`;
    else {
      const known = wholeIds.get(part.id);
      if (known === undefined) {
        id = `${part.id}=`;
        wholeIds.set(part.id, id);
      } else id = known;
    }
    segments.push({ id, tokens: partTokens });
    tokens += partTokens;
    chars += partChars;
    units += 1;
  }
  return { segments, tokens, chars, units, fixedTokens: imageTokens };
}

/**
 * The rendered messages of a history with the totals of each of its prefixes (index i: the first i
 * messages), kept from one render to the next: a send mostly shows the previous one's history and
 * more, so only the messages after the part it keeps are looked up and summed. Its segments follow
 * `base` segments at the front of `segments` (an owner's head), which it leaves to its owner.
 */
export class RenderedPrefix {
  readonly visible: ReplayMessage[] = emptyObjectArray();
  readonly segments: Segment[] = emptyObjectArray();
  /** The totals of the messages kept now. */
  tokens = 0;
  chars = 0;
  units = 0;
  fixed = 0;
  /** Per count of messages: the end of its segments (after `base`) and its totals. */
  private readonly ends: number[] = [0];
  private readonly tokenSums: number[] = [0];
  private readonly charSums: number[] = [0];
  private readonly unitSums: number[] = [0];
  private readonly fixedSums: number[] = [0];

  /** Keeps the first `count` messages (their segments after the `base` in front). */
  keep(count: number, base: number): void {
    cutTo(this.visible, count);
    cutTo(this.segments, base + (this.ends[count] ?? 0));
    // Each list cut on its own: a list of the lists would be an allocation on every send.
    cutTo(this.ends, count + 1);
    cutTo(this.tokenSums, count + 1);
    cutTo(this.charSums, count + 1);
    cutTo(this.unitSums, count + 1);
    cutTo(this.fixedSums, count + 1);
    this.tokens = this.tokenSums[count] ?? 0;
    this.chars = this.charSums[count] ?? 0;
    this.units = this.unitSums[count] ?? 0;
    this.fixed = this.fixedSums[count] ?? 0;
  }

  /** Adds the next message, rendered as `part`. */
  add(message: ReplayMessage, part: MessageRender, base: number): void {
    this.visible.push(message);
    for (const segment of part.segments) this.segments.push(segment);
    this.tokens += part.tokens;
    this.chars += part.chars;
    this.units += part.units;
    this.fixed += part.fixedTokens;
    this.ends.push(this.segments.length - base);
    this.tokenSums.push(this.tokens);
    this.charSums.push(this.chars);
    this.unitSums.push(this.units);
    this.fixedSums.push(this.fixed);
  }
}

/**
 * Segments of a prompt: the static block, the summary block if any, then one segment per visible
 * message (its own text and calls) and one per tool result. A segment's id names its rendered
 * content: a tool result shown pruned is a different segment from the same result shown whole.
 *
 * One renderer serves one calibration. History messages are immutable (a changed message is a
 * new object, history-message.ts), so each message's segments are computed once and reused by
 * every later prompt that shows it: a prompt costs O(messages), not O(parts), and a segment keeps
 * one id string, which the cache trie compares by reference first.
 */
export class PromptRenderer {
  private readonly rendered = new WeakMap<ReplayMessage, MessageRender>();
  /**
   * The last render's messages, after its head's segments (`headLength` of them): a render looks
   * up only the messages after the part it shares (by identity) with it, and changes the head's
   * segments only when the head changes.
   */
  private readonly last = new RenderedPrefix();
  private headLength = 0;
  /** The last head, reused while the static block and the summary are the same. */
  private lastHead: {
    readonly staticBlockId: string;
    readonly summary: SummaryBlock | null;
    readonly head: MessageRender;
  } | null = null;

  /**
   * `reloadIds` false renders a message reloaded from the store (engine.md §5.6) as the message it
   * was: a walk recorded with FreeCode's reload priced as the walk without it (they differ only there).
   */
  constructor(
    private readonly calibration: TokenCalibration,
    private readonly reloadIds = true,
    /** Shared with the renderers of the same session's other calibrations (`ReplayMemo`'s). */
    private readonly wholeIds: WholeResultIds = new Map(),
  ) {}

  /**
   * The prompt's sizes and segments. The segment list is this renderer's own, changed by its next
   * render (a send's segments are priced before the walk renders again): a caller that keeps it
   * copies it (`RowEmitter.priced` with `keepPrompts`), as for a traced pricing's.
   */
  render(staticBlockId: string, summary: SummaryBlock | null, visible: readonly ReplayMessage[]): RenderedPrompt {
    const head = this.head(staticBlockId, summary);
    const last = this.last;
    const limit = Math.min(last.visible.length, visible.length);
    let common = 0;
    while (common < limit && last.visible[common] === visible[common]) common += 1;
    last.keep(common, this.headLength);
    this.setHead(head.segments);
    for (let i = common; i < visible.length; i++) {
      const message = visible[i];
      if (message === undefined) throw new Error('invariant: a history has no holes');
      last.add(message, this.message(message), this.headLength);
    }
    return {
      segments: last.segments,
      promptTokens: head.tokens + last.tokens,
      visibleChars: head.chars + last.chars,
      visibleUnits: head.units + last.units,
      fixedTokens: head.fixedTokens + last.fixed,
    };
  }

  /** The head's segments in front of the messages' (the same ones kept: a head is 1–3 segments). */
  private setHead(head: readonly Segment[]): void {
    const segments = this.last.segments;
    if (head.length === this.headLength && head.every((segment, i) => segments[i] === segment)) return;
    segments.splice(0, this.headLength, ...head);
    this.headLength = head.length;
  }

  /**
   * What comes before the visible messages: the static block, and the summary block with the
   * context re-attached after it (chars and units count the summary, not the static block).
   */
  head(staticBlockId: string, summary: SummaryBlock | null): MessageRender {
    const last = this.lastHead;
    if (last !== null && last.staticBlockId === staticBlockId && last.summary === summary) return last.head;
    const head = this.newHead(staticBlockId, summary);
    this.lastHead = { staticBlockId, summary, head };
    return head;
  }

  private newHead(staticBlockId: string, summary: SummaryBlock | null): MessageRender {
    const calibration = this.calibration;
    const segments: Segment[] = [{ id: staticBlockId, tokens: calibration.staticBlockTokens }];
    let tokens = calibration.staticBlockTokens;
    let chars = 0;
    let units = 0;
    let fixedTokens = 0;
    if (summary !== null) {
      const summaryTokens = tokensForChars(summary.chars, calibration);
      segments.push({ id: summary.id, tokens: summaryTokens });
      tokens += summaryTokens;
      chars += summary.chars;
      units += 1;
      const restored = summary.restart === undefined ? 0 : (calibration.restoredTokens?.[summary.restart - 1] ?? 0);
      if (restored > 0) {
        segments.push({ id: `${summary.id}:restored`, tokens: restored });
        tokens += restored;
        fixedTokens += restored;
      }
    }
    return { segments, tokens, chars, units, fixedTokens };
  }

  /**
   * What one visible message contributes, computed once per message object (`keep` false: not
   * kept when not known yet, for a caller that sizes each message once under this calibration).
   */
  message(message: ReplayMessage, keep = true): MessageRender {
    let part = this.rendered.get(message);
    if (part === undefined) {
      part = renderMessage(message, this.calibration, this.reloadIds, this.wholeIds);
      if (keep) this.rendered.set(message, part);
    }
    return part;
  }
}

/** `PromptRenderer.render` once, without reuse. */
export function renderPrompt(
  staticBlockId: string,
  summary: SummaryBlock | null,
  visible: readonly ReplayMessage[],
  calibration: TokenCalibration,
): RenderedPrompt {
  return new PromptRenderer(calibration).render(staticBlockId, summary, visible);
}
