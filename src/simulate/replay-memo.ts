/**
 * Work the replays of one session share. `simulateSession` replays a session several times (the
 * recorded fit, then each scenario) and every replay turns the same items into the same history
 * messages, the same tool activity and the same rendered segments; only the policy deciding what
 * is shown differs. All of it is pure in the session's items (and the calibration, for segment
 * sizes), so it is computed once per session and looked up by the items' and messages' identity.
 * Same input → same output: a replay with a memo gives the rows a replay without one gives.
 *
 * One memo serves one session (its keys are that session's objects); it is dropped with it.
 */
import type { PruneMemo, ToolActivity, ToolLineMemo } from '../engine/index.js';
import { newPruneMemo } from '../engine/index.js';
import type { Item, ToolCall } from '../session/model.js';
import type { TokenCalibration } from './calibrate.js';
import type { ReplayMessage } from './provider-view.js';
import { PromptRenderer, messageForItem, toolResultText, withToolResult } from './provider-view.js';

type ResultKey = { readonly text: string; readonly failed: boolean };

export class ReplayMemo {
  /** Rendered tool-transcript lines by activity entry (the memory transcript, engine.md §3.5). */
  readonly toolLines: ToolLineMemo = new WeakMap();
  /** What the pruning policies can reuse (their output depends on the message alone). */
  readonly prune: PruneMemo = newPruneMemo();
  private readonly messages = new WeakMap<Item, ReplayMessage | null>();
  private readonly resultTexts = new WeakMap<Item, string>();
  private readonly withResults = new WeakMap<ReplayMessage, Map<string, ResultKey & { message: ReplayMessage }>>();
  private readonly calls = new WeakMap<ToolCall, ToolActivity>();
  private readonly results = new WeakMap<ToolActivity, WeakMap<Item, ToolActivity>>();
  private readonly renderers = new WeakMap<TokenCalibration, PromptRenderer>();

  /** `messageForItem`, once per item. */
  message(item: Item, itemIndex: number): ReplayMessage | null {
    let message = this.messages.get(item);
    if (message === undefined) {
      message = messageForItem(item, itemIndex);
      this.messages.set(item, message);
    }
    return message;
  }

  /** `toolResultText`, once per item (a placeholder string is built once). */
  resultText(item: Item & { readonly kind: 'tool_result' }): string {
    let text = this.resultTexts.get(item);
    if (text === undefined) {
      text = toolResultText(item);
      this.resultTexts.set(item, text);
    }
    return text;
  }

  /** `withToolResult`, once per message, call and result. */
  withToolResult(message: ReplayMessage, callId: string, text: string, failed: boolean): ReplayMessage | null {
    let byCall = this.withResults.get(message);
    const known = byCall?.get(callId);
    if (known !== undefined && known.text === text && known.failed === failed) return known.message;
    const updated = withToolResult(message, callId, text, failed);
    if (updated === null) return null;
    if (byCall === undefined) {
      byCall = new Map();
      this.withResults.set(message, byCall);
    }
    byCall.set(callId, { text, failed, message: updated });
    return updated;
  }

  /** A call as the memory transcript sees it, its arguments parsed once. */
  activity(call: ToolCall): ToolActivity {
    let entry = this.calls.get(call);
    if (entry === undefined) {
      entry = { tool: call.name, args: parseArgs(call.argsJson) };
      this.calls.set(call, entry);
    }
    return entry;
  }

  /** `entry` with the result of tool-result item `item` (its output, or its error when it failed). */
  activityWithResult(entry: ToolActivity, item: Item & { readonly kind: 'tool_result' }, text: string): ToolActivity {
    let byItem = this.results.get(entry);
    const known = byItem?.get(item);
    if (known !== undefined) return known;
    const updated: ToolActivity = item.failed ? { ...entry, error: text } : { ...entry, output: text };
    if (byItem === undefined) {
      byItem = new WeakMap();
      this.results.set(entry, byItem);
    }
    byItem.set(item, updated);
    return updated;
  }

  /** The prompt renderer of a calibration (its segments sized by it). */
  renderer(calibration: TokenCalibration): PromptRenderer {
    let renderer = this.renderers.get(calibration);
    if (renderer === undefined) {
      renderer = new PromptRenderer(calibration);
      this.renderers.set(calibration, renderer);
    }
    return renderer;
  }
}

/** A call's arguments as the transcript renders them: the parsed JSON, else the raw text. */
function parseArgs(argsJson: string): unknown {
  try {
    return JSON.parse(argsJson) as unknown;
  } catch {
    return argsJson;
  }
}
