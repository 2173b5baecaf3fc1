/**
 * Tool-result editing (README.md "Policies of the field"): a policy that replaces some tool
 * results of the provider-facing copy by a short placeholder, applied after the scenario's
 * pruning and before the prompt is rendered. Every editor is a small state machine fed the
 * history at each render (a render is a send or a measurement, as for prefix-stable pruning);
 * the placeholder's segment id names the policy, so the cache model sees exactly where the
 * prefix changed and prices everything after it as new (replay.md §5).
 */
import { isToolResultPart } from '../../engine/history-message.js';
import type { ReplayMessage, ReplayToolPart } from '../provider-view.js';
import { replayMessageWith } from '../provider-view.js';

/** Sizes a candidate history as the whole prompt (static block and summary included), in tokens. */
export type PromptSizer = (history: readonly ReplayMessage[]) => number;

export interface ToolResultEditor {
  /** A real user message is about to join the history: the previous turn has ended. */
  endTurn(history: readonly ReplayMessage[]): void;
  /** The history the provider receives; sticky decisions are recorded. */
  edit(history: readonly ReplayMessage[], promptTokens: PromptSizer): readonly ReplayMessage[];
}

/** A tool part of the history, where it sits. */
export type ToolPartRef = { readonly messageIndex: number; readonly part: ReplayToolPart };

/** Every tool part of the history, oldest first. */
export function toolParts(history: readonly ReplayMessage[]): ToolPartRef[] {
  const out: ToolPartRef[] = [];
  history.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    for (const part of message.parts)
      if (isToolResultPart(part)) out.push({ messageIndex, part: part as ReplayToolPart });
  });
  return out;
}

/**
 * The history with the results of `callIds` replaced by `placeholder`, tagged `tag` (the
 * segment id then names the replacement, not just its length). A result no longer than the
 * placeholder is left as it is: replacing it would save nothing, and an edit never makes a
 * prompt larger than the unedited one (which the window property relies on).
 */
export function withPlaceholders(
  history: readonly ReplayMessage[],
  callIds: ReadonlySet<string>,
  placeholder: string,
  tag: string,
): readonly ReplayMessage[] {
  if (callIds.size === 0) return history;
  let changed = false;
  const out = history.map((message) => {
    if (message.role !== 'assistant') return message;
    let touched = false;
    const parts = message.parts.map((part) => {
      if (!isToolResultPart(part) || !callIds.has(part.id) || part.result.length <= placeholder.length) return part;
      touched = true;
      const edited: ReplayToolPart = { ...(part as ReplayToolPart), result: placeholder, editedAs: tag };
      return edited;
    });
    if (!touched) return message;
    changed = true;
    return replayMessageWith(message, parts);
  });
  return changed ? out : history;
}
