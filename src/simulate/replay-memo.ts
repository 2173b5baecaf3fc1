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
import type { PruneMemo } from '../engine/pruning-policy.js';
import type { SummaryMemo } from '../engine/summarizer.js';
import type { ToolActivity, ToolLineMemo, TurnMemo } from '../engine/tool-transcript.js';
import { newPruneMemo } from '../engine/pruning-policy.js';
import type { Item, Session, ToolCall } from '../session/model.js';
import type { TokenCalibration } from './calibrate.js';
import { stringifiesToItself } from './canonical-json.js';
import type { ReplayMessage, WholeResultIds } from './provider-view.js';
import { PromptRenderer, messageForItem, toolResultText, withToolResult } from './provider-view.js';

/**
 * Characters of content above which a session's tool-transcript lines are not kept between its
 * replays (`ReplayMemo.toolLines`). A line is ~400 characters and, clipped with `…`, a two-byte
 * string: kept for every call of a 1 GB Claude Code transcript they were ~96 MB of live heap
 * (`bench/simulate-speed.mjs --big`), for one render saved per call in each later walk.
 */
export const TOOL_LINE_MEMO_MAX_CHARS = 64_000_000;

/** Σ characters of a session's items (`Item.chars`): what its replays hold of it. */
export function sessionContentChars(session: Session): number {
  let chars = 0;
  for (const item of session.items) chars += item.chars;
  return chars;
}

export class ReplayMemo {
  /**
   * Rendered tool-transcript lines by activity entry (the memory transcript, engine.md §3.5);
   * undefined where they are not kept (`keepToolLines` false: rendered again by each walk).
   */
  readonly toolLines: ToolLineMemo | undefined;
  /**
   * The heuristic summarizer's readings by memory content (`SummaryMemo`), where asked
   * (`keepSummaries`) and the tool lines are kept (the contents are made of them): every replay of
   * the session compacts the same messages at its own points. It pays in a sweep (tens of
   * scenarios: −10 % of a steady pass over the FreeCode benchmark corpus) and costs in `simulate`
   * (two or three walks, a fifth of the readings met again: the strings it keeps outweigh them).
   */
  readonly summaries: SummaryMemo | undefined;
  /**
   * Memory entries of tool-calling responses (`TurnMemo`), kept with the summarizer's readings:
   * the same response's entry is then the same string in every replay, which the readings' map
   * finds by reference (its hash kept in the string) instead of hashing and comparing a copy.
   */
  readonly turns: TurnMemo | undefined;
  /** What the pruning policies can reuse (their output depends on the message alone). */
  readonly prune: PruneMemo = newPruneMemo();
  // By item index (one memo serves one session): plain arrays, lighter than weak maps on a
  // session of 10^5 items.
  private readonly messages: (ReplayMessage | null | undefined)[] = [];
  private readonly placeholders: (string | undefined)[] = [];
  private readonly attached: ({ readonly to: ReplayMessage; readonly message: ReplayMessage } | undefined)[] = [];
  private readonly results: ({ readonly to: ToolActivity; readonly entry: ToolActivity } | undefined)[] = [];
  private readonly calls = new WeakMap<ToolCall, ToolActivity>();
  private readonly renderers = new WeakMap<TokenCalibration, PromptRenderer>();
  private readonly plainRenderers = new WeakMap<TokenCalibration, PromptRenderer>();
  /** The segment ids of whole tool results, shared by every renderer of the session. */
  private readonly wholeIds: WholeResultIds = new Map();

  /**
   * `keepToolLines`: keep the tool-transcript lines between replays (default; see
   * `TOOL_LINE_MEMO_MAX_CHARS`); `keepSummaries`: keep the summarizer's readings too (`summaries`).
   */
  constructor(options: { readonly keepToolLines?: boolean; readonly keepSummaries?: boolean } = {}) {
    this.toolLines = options.keepToolLines === false ? undefined : new WeakMap();
    this.summaries = options.keepSummaries === true && this.toolLines !== undefined ? new Map() : undefined;
    this.turns = this.summaries === undefined ? undefined : new WeakMap();
  }

  /** `messageForItem`, once per item. */
  message(item: Item, itemIndex: number): ReplayMessage | null {
    let message = this.messages[itemIndex];
    if (message === undefined) {
      message = messageForItem(item, itemIndex);
      this.messages[itemIndex] = message;
    }
    return message;
  }

  /** `toolResultText`, a placeholder built once per item. */
  resultText(item: Item & { readonly kind: 'tool_result' }, itemIndex: number): string {
    if (item.text !== null) return item.text;
    let text = this.placeholders[itemIndex];
    if (text === undefined) {
      text = toolResultText(item);
      this.placeholders[itemIndex] = text;
    }
    return text;
  }

  /**
   * `withToolResult` for tool-result item `itemIndex`, once per message it attaches to (the same
   * message object in every replay that reaches it; history messages are immutable).
   */
  withToolResult(
    message: ReplayMessage,
    item: Item & { readonly kind: 'tool_result' },
    itemIndex: number,
    text: string,
  ): ReplayMessage | null {
    const known = this.attached[itemIndex];
    if (known !== undefined && known.to === message) return known.message;
    const updated = withToolResult(message, item.callId, text, item.failed);
    if (updated !== null) this.attached[itemIndex] = { to: message, message: updated };
    return updated;
  }

  /**
   * A call as the memory transcript sees it: its arguments parsed once and kept serialized
   * (`ToolActivity.argsJson`), not as the parsed value (a session's arguments parsed are several
   * times their text in memory, and the transcript only ever serializes them again).
   */
  activity(call: ToolCall): ToolActivity {
    let entry = this.calls.get(call);
    if (entry === undefined) {
      entry = activityOf(call);
      this.calls.set(call, entry);
    }
    return entry;
  }

  /** `entry` with the result of tool-result item `itemIndex` (its output, or its error when it failed). */
  activityWithResult(
    entry: ToolActivity,
    item: Item & { readonly kind: 'tool_result' },
    itemIndex: number,
    text: string,
  ): ToolActivity {
    const known = this.results[itemIndex];
    if (known !== undefined && known.to === entry) return known.entry;
    // Nothing read or made in a branch of its own: a failed call is rare, and code optimized before
    // the first one would be thrown away by it (as it was by a spread there, then by a load).
    const { tool, argsJson, output, error } = entry;
    const failed = item.failed;
    const updated = toolActivity(tool, argsJson, failed ? output : text, failed ? text : error);
    this.results[itemIndex] = { to: entry, entry: updated };
    return updated;
  }

  /** The prompt renderer of a calibration (its segments sized by it); `reloadIds` as `PromptRenderer`'s. */
  renderer(calibration: TokenCalibration, reloadIds = true): PromptRenderer {
    const renderers = reloadIds ? this.renderers : this.plainRenderers;
    let renderer = renderers.get(calibration);
    if (renderer === undefined) {
      renderer = new PromptRenderer(calibration, reloadIds, this.wholeIds);
      renderers.set(calibration, renderer);
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

/**
 * The entry `{ tool, args: parseArgs(argsJson) }` renders as, with the arguments serialized as the
 * transcript serializes them. Most logs store `JSON.stringify` output, which serializes back to
 * itself: the session's own string is kept then, not a copy. Where the ingest wrote the text with
 * `JSON.stringify` itself (`ToolCall.argsStringified`) that is known without scanning it.
 */
export function activityOf(call: ToolCall): ToolActivity {
  // Known to serialize back to itself without parsing it (and not JSON `null`): kept as it is.
  if (call.argsJson !== 'null' && (call.argsStringified === true || stringifiesToItself(call.argsJson)))
    return toolActivity(call.name, call.argsJson, undefined, undefined);
  const args = parseArgs(call.argsJson);
  // As `renderArgs`: no arguments shown for null (JSON `null`); parsed JSON always serializes.
  if (args === null) return toolActivity(call.name, undefined, undefined, undefined);
  const json = JSON.stringify(args);
  return toolActivity(call.name, json === call.argsJson ? call.argsJson : json, undefined, undefined);
}

/**
 * Every activity entry of the replay in one shape (these fields, in this order; an absent one is
 * undefined, which the transcript reads as absent): its renderer, inlined in the walk, then sees
 * one map instead of six (with or without arguments, output or error).
 */
function toolActivity(
  tool: string,
  argsJson: string | undefined,
  output: string | undefined,
  error: string | undefined,
): ToolActivity {
  return { tool, argsJson, output, error };
}
