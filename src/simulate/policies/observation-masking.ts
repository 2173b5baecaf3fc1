/**
 * Observation masking (replay.md §7; Lindenbauer et al., "The Complexity Trap", JetBrains
 * Research 2025, M = 10): the last M tool results stay verbatim, every older one is replaced by a
 * short placeholder. Stateless: the window of M moves with each new result, and the prefix changes
 * exactly where a result crosses it (that result's segment becomes the placeholder), which the
 * cache model prices as a re-write of everything after it.
 */
import type { ReplayMessage } from '../provider-view.js';
import type { ToolResultEditor } from './tool-result-editing.js';
import { toolParts, withPlaceholders } from './tool-result-editing.js';

/** The text standing for a masked result (its length is what the replay measures). */
export const MASKED_RESULT_PLACEHOLDER = '[Old tool result omitted]';

export class ObservationMasking implements ToolResultEditor {
  constructor(private readonly keepToolResults: number) {}

  endTurn(): void {}

  edit(history: readonly ReplayMessage[]): readonly ReplayMessage[] {
    const parts = toolParts(history);
    const older = parts.slice(0, Math.max(0, parts.length - this.keepToolResults));
    return withPlaceholders(history, new Set(older.map((ref) => ref.part.id)), MASKED_RESULT_PLACEHOLDER, 'masked');
  }
}
