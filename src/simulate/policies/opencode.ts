/**
 * opencode's context policy, from its public source (sst/opencode at 31e22f65,
 * packages/opencode/src/session/compaction.ts and session/overflow.ts; README.md cites each
 * constant):
 * - `prune()` after each turn: walking the history newest first, the last two user turns are
 *   never touched; older completed tool outputs (not of a protected tool) are counted with
 *   opencode's estimate (chars / 4); once the count passes PRUNE_PROTECT, every further output is
 *   marked; the marked outputs are replaced by a placeholder only when together they exceed
 *   PRUNE_MINIMUM. The walk stops at an output already pruned (decisions are sticky).
 * - compaction when the context reaches the usable window (`isOverflow`), i.e. the window minus
 *   the output reservation minus COMPACTION_BUFFER; the replay runs FreeCode's compaction with
 *   opencode's trigger and recent-tail cap (scenario.ts).
 */
import type { ReplayMessage } from '../provider-view.js';
import type { ToolResultEditing } from '../scenario.js';
import type { ToolResultEditor } from './tool-result-editing.js';
import { toolParts, withPlaceholders } from './tool-result-editing.js';

/** What opencode sends in place of a pruned (compacted) tool output. */
export const PRUNED_RESULT_PLACEHOLDER = '[Old tool result content cleared]';

/** opencode's `Token.estimate`: characters / 4, rounded (util/token.ts). */
export function opencodeTokenEstimate(chars: number): number {
  return Math.max(0, Math.round(chars / 4));
}

/** OUTPUT_TOKEN_MAX (provider/transform.ts) and COMPACTION_BUFFER (session/overflow.ts). */
export const OPENCODE_OUTPUT_TOKEN_MAX = 32_000;
export const OPENCODE_COMPACTION_BUFFER = 20_000;

/**
 * opencode's usable window (overflow.ts): `context − maxOutputTokens − reserved` with
 * `maxOutputTokens = min(limit.output, 32,000) || 32,000` and `reserved = min(20,000, maxOutputTokens)`.
 * The price table knows no separate input limit, so the `limit.input` branch does not arise.
 */
export function opencodeUsableWindow(windowTokens: number, maxOutputTokens: number | null): number {
  const maxOutput =
    Math.min(maxOutputTokens ?? OPENCODE_OUTPUT_TOKEN_MAX, OPENCODE_OUTPUT_TOKEN_MAX) || OPENCODE_OUTPUT_TOKEN_MAX;
  const usable = windowTokens - maxOutput - Math.min(OPENCODE_COMPACTION_BUFFER, maxOutput);
  return usable > 0 ? usable : windowTokens;
}

type Params = Extract<ToolResultEditing, { kind: 'opencode-prune' }>;

export class OpencodePrune implements ToolResultEditor {
  private readonly pruned = new Set<string>();
  private readonly protectedTools: ReadonlySet<string>;

  constructor(private readonly params: Params) {
    this.protectedTools = new Set(params.protectedTools);
  }

  /** `prune()` at the end of a turn, on the stored history (full outputs). */
  endTurn(history: readonly ReplayMessage[]): void {
    let turns = 0;
    let total = 0;
    let prunedTokens = 0;
    const marked: string[] = [];
    walk: for (let i = history.length - 1; i >= 0; i--) {
      const message = history[i];
      if (message === undefined) continue;
      if (message.role === 'user') turns += 1;
      if (turns < 2 || message.role !== 'assistant') continue;
      const parts = toolParts([message]).reverse();
      for (const { part } of parts) {
        if (part.failed || this.protectedTools.has(part.name)) continue;
        if (this.pruned.has(part.id)) break walk;
        const estimate = opencodeTokenEstimate(part.result.length);
        total += estimate;
        if (total > this.params.protectTokens) {
          prunedTokens += estimate;
          marked.push(part.id);
        }
      }
    }
    if (prunedTokens > this.params.minimumTokens) for (const id of marked) this.pruned.add(id);
  }

  edit(history: readonly ReplayMessage[]): readonly ReplayMessage[] {
    return withPlaceholders(history, this.pruned, PRUNED_RESULT_PLACEHOLDER, 'pruned');
  }
}
