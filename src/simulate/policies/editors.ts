/** The editor a scenario's `editing` parameter names (tool-result-editing.ts). */
import type { ToolResultEditing } from '../scenario.js';
import { ClearToolUses } from './clear-tool-uses.js';
import { ObservationMasking } from './observation-masking.js';
import { OpencodePrune } from './opencode.js';
import type { ToolResultEditor } from './tool-result-editing.js';

const NO_EDITING: ToolResultEditor = {
  endTurn: () => undefined,
  edit: (history) => history,
};

export function toolResultEditor(editing: ToolResultEditing): ToolResultEditor {
  switch (editing.kind) {
    case 'none':
      return NO_EDITING;
    case 'observation-masking':
      return new ObservationMasking(editing.keepToolResults);
    case 'clear-tool-uses':
      return new ClearToolUses(editing);
    case 'opencode-prune':
      return new OpencodePrune(editing);
    default: {
      const unreachable: never = editing;
      return unreachable;
    }
  }
}
