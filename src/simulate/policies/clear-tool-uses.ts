/**
 * Anthropic context editing, `clear_tool_uses_20250919` (Anthropic docs, "Context editing"):
 * when the prompt exceeds the trigger (default 100,000 input tokens), the oldest tool results
 * are cleared, keeping the last `keep` tool uses (default 3) and any tool named in
 * `exclude_tools`; with `clear_at_least`, a clearing that would free fewer tokens does not happen.
 *
 * Modelled as the documented intent (clearing in steps, each one worth the cache it breaks):
 * what was cleared stays cleared, and the trigger is compared with the prompt as the provider
 * processes it (already cleared results as placeholders). The provider invalidates the cache
 * after the first cleared point: the cleared result's segment changes, so the cache model reads
 * at most the alive prefix before it and writes everything after (replay.md §5).
 */
import type { ReplayMessage } from '../provider-view.js';
import type { ToolResultEditing } from '../scenario.js';
import type { PromptSizer, ToolResultEditor } from './tool-result-editing.js';
import { toolParts, withPlaceholders } from './tool-result-editing.js';

/** The text standing for a cleared result (an assumption: its length is what the replay measures). */
export const CLEARED_RESULT_PLACEHOLDER = '[Tool result cleared by context editing]';

type Params = Extract<ToolResultEditing, { kind: 'clear-tool-uses' }>;

export class ClearToolUses implements ToolResultEditor {
  private readonly cleared = new Set<string>();
  private readonly excluded: ReadonlySet<string>;

  constructor(private readonly params: Params) {
    this.excluded = new Set(params.excludeTools);
  }

  endTurn(): void {}

  edit(history: readonly ReplayMessage[], promptTokens: PromptSizer): readonly ReplayMessage[] {
    const view = withPlaceholders(history, this.cleared, CLEARED_RESULT_PLACEHOLDER, 'cleared');
    const before = promptTokens(view);
    if (before <= this.params.triggerTokens) return view;
    const parts = toolParts(history);
    const kept = Math.max(0, parts.length - this.params.keepToolUses);
    const candidates = parts
      .slice(0, kept)
      .filter((ref) => !this.cleared.has(ref.part.id) && !this.excluded.has(ref.part.name))
      .map((ref) => ref.part.id);
    if (candidates.length === 0) return view;
    const next = new Set([...this.cleared, ...candidates]);
    const after = withPlaceholders(history, next, CLEARED_RESULT_PLACEHOLDER, 'cleared');
    const freed = before - promptTokens(after);
    if (freed <= 0 || freed < this.params.clearAtLeastTokens) return view;
    for (const id of candidates) this.cleared.add(id);
    return after;
  }
}
