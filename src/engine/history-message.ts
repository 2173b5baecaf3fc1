/**
 * The provider-facing history shape the engine's store trim, pruning and legacy policies work on
 * (engine.md §5.6, §7.3): messages with a role and parts, a tool part carrying its call id, tool
 * name and the model-facing result. Callers may extend both messages and parts with their own
 * fields; the engine passes unchanged objects through by reference and spreads changed ones.
 */

/** Any part of a history message; only `type` is read, plus the fields named below. */
export interface HistoryPart {
  readonly type: string;
  /** FreeCode's codemode snapshot (newest only), carried across a compaction by §2.4 step 4. */
  readonly codemodeStore?: unknown;
}

/** A tool call and its result, as one part of an assistant message (engine.md §7.3, §5.6). */
export interface ToolResultPart extends HistoryPart {
  readonly type: 'tool';
  /** Provider tool-call id, or `tool-<storedMessageId>-<partIndex>` after a reload (§5.6). */
  readonly id: string;
  readonly name: string;
  readonly args?: unknown;
  /** The model-facing (context-capped) output; what pruning measures and replaces. */
  readonly result: string;
}

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
  const parts = message.parts.map((part) => {
    if (!isToolResultPart(part)) return part;
    const replacement = replacementFor(part);
    return replacement === undefined ? part : { ...part, result: replacement };
  });
  return { ...message, parts };
}
