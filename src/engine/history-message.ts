/**
 * The provider-facing history shape the engine's store trim, pruning and legacy policies work on
 * (engine.md §5.6, §7.3): messages with a role and parts, a tool part carrying its call id, tool
 * name and the model-facing result. Callers may extend both messages and parts with their own
 * fields; the engine passes unchanged objects through by reference and spreads changed ones.
 */
import { mapPacked } from '../session/packed-array.js';

/** What the engine reads of any part: its `type`, and the codemode snapshot a compaction carries. */
export interface HistoryPartBase {
  readonly type: string;
  /** FreeCode's codemode snapshot (newest only), carried across a compaction by §2.4 step 4. */
  readonly codemodeStore?: unknown;
}

/** A text or code part (§7.3). */
export interface TextPart extends HistoryPartBase {
  readonly type: 'text' | 'code';
  readonly content: string;
  readonly language?: string | undefined;
}

/** A tool call and its result, as one part of an assistant message (engine.md §7.3, §5.6). */
export interface ToolResultPart extends HistoryPartBase {
  readonly type: 'tool';
  /** Provider tool-call id, or `tool-<storedMessageId>-<partIndex>` after a reload (§5.6). */
  readonly id: string;
  readonly name: string;
  readonly args?: unknown;
  /** The model-facing (context-capped) output; what pruning measures and replaces. */
  readonly result: string;
}

/** An image part (§7.3): base64 data, counted apart from text (§1.6). */
export interface ImagePart extends HistoryPartBase {
  readonly type: 'image';
  readonly data?: string | undefined;
  readonly mediaType?: string | undefined;
  readonly altText?: string | undefined;
}

/** Any part of a history message; the engine only rewrites tool results. */
export type HistoryPart = HistoryPartBase | TextPart | ToolResultPart | ImagePart;

export type HistoryRole = 'user' | 'assistant' | 'system';

export interface HistoryMessage {
  readonly id: string;
  readonly role: HistoryRole;
  readonly parts: readonly HistoryPart[];
  /**
   * Messages of one provider response share it (FreeCode stores a response as a text message
   * plus one message per tool call, §7.4). Absent: the message is a response of its own.
   */
  readonly responseId?: string | undefined;
  readonly timestampMs?: number | undefined;
}

/** Whether a part is a tool call with a string result (the only parts pruning may touch). */
export function isToolResultPart(part: HistoryPart): part is ToolResultPart {
  return (
    part.type === 'tool' &&
    'id' in part &&
    typeof part.id === 'string' &&
    'name' in part &&
    typeof part.name === 'string' &&
    'result' in part &&
    typeof part.result === 'string'
  );
}

/** The tool-call id FreeCode derives for reloaded history: `tool-<messageId>-<partIndex>` (§5.6). */
export function derivedToolCallId(storedMessageId: string, partIndex: number): string {
  return `tool-${storedMessageId}-${partIndex}`;
}

/** Rebuilds a message with some tool results replaced; other parts keep their identity. */
export function withReplacedResults<M extends HistoryMessage>(
  message: M,
  replacementFor: (part: ToolResultPart) => string | undefined,
): M {
  const parts = mapPacked(message.parts, (part) => {
    if (!isToolResultPart(part)) return part;
    const replacement = replacementFor(part);
    return replacement === undefined ? part : { ...part, result: replacement };
  });
  return { ...message, parts };
}
