/**
 * The replay (replay.md §4): one session under one scenario, request by request, through the
 * engine. Pure and synchronous: everything arrives as arguments, time comes from the log.
 *
 * First-order counterfactual: the agent produces the same items in the same order whatever the
 * policy; only what each request carries changes. A turn that fails under the scenario is
 * counted, its rejected sends are rows, and the log's next items still arrive.
 *
 * Three parts: this file is the log walk (items, harness events and requests in log order, and
 * when a response is complete); `compaction-driver.ts` holds the context and runs every
 * compaction; `row-emitter.ts` turns sends into priced rows. The order of operations is written
 * once, in `README.md` ("The walk"); `LogWalk.run` follows it step by step.
 */
import type { EngineParams, PruningPolicy } from '../engine/params.js';
import type { ToolActivity } from '../engine/tool-transcript.js';
import { OverflowRecovery, runTurnSends } from '../engine/overflow-recovery.js';
import { isContextOverflowError } from '../engine/overflow.js';
import { AUG_ENGINE_PARAMS, DEFAULT_ENGINE_PARAMS } from '../engine/params.js';
import { usableWindow } from '../engine/tokens.js';
import type { HarnessEvent, Item, Request, Session } from '../session/model.js';
import { CompactionDriver } from './compaction-driver.js';
import { opencodeUsableWindow } from './policies/opencode.js';
import type { RenderedPrompt, ReplayPrompt } from './provider-view.js';
import { ReplayMemo } from './replay-memo.js';
import type { ModelFacts, RecordedPolicy, ReplayInput, ReplayResult } from './replay-types.js';
import type { ReplaySink, RowContext } from './row-emitter.js';
import { RowEmitter } from './row-emitter.js';
import type { Scenario } from './scenario.js';

export type {
  ModelFacts,
  PricedPrompt,
  RecordedPolicy,
  ReplayCompaction,
  ReplayCompactionTrigger,
  ReplayInput,
  ReplayResult,
  ReplayRow,
  ReplayRowKind,
} from './replay-types.js';
export { repriceReplay } from './row-emitter.js';

/** The engine parameters a scenario stands for, with its target and trigger rule folded in. */
export function engineParamsFor(scenario: Scenario, recorded: RecordedPolicy): EngineParams {
  const p = scenario.params;
  const pruning: PruningPolicy =
    p.pruning === 'recorded'
      ? recorded.pruning
      : p.pruning === 'sliding-legacy'
        ? { kind: 'sliding-legacy', keepRecentResponses: 2, capChars: 1_000 }
        : { kind: p.pruning };
  // Where the scenario replays the agent as it ran (its pruning is `recorded`: the `recorded` and
  // `window-only` families), the engine is the generation the log was written by (engine.md §0,
  // §11): the Aug engine has no head carve-out (§2.2), truncates memory instead of the newest tool
  // transcript (§4.3), has no post-compaction hold (§4.4) and resets its prune state every run
  // (§5.1). A scenario that names its own pruning (`freecode`, `none`) is today's FreeCode.
  const base = p.pruning === 'recorded' && recorded.version === 'aug' ? AUG_ENGINE_PARAMS : DEFAULT_ENGINE_PARAMS;
  return {
    ...base,
    selector: p.selector,
    targetTokens: p.targetTokens ?? Number.MAX_SAFE_INTEGER,
    bufferTokens: p.bufferTokens,
    preserveRecentTurns: p.preserveRecentTurns,
    maxPreserveRecentTokens: p.maxPreserveRecentTokens,
    maxPreserveHeadTokens: p.maxPreserveHeadTokens,
    holdGrowthTokens: p.holdGrowthTokens,
    maxOverflowCompactions: p.maxOverflowCompactions,
    toolResultBudgetChars: p.toolResultBudgetChars,
    pruning,
    legacyMicrocompact: p.pruning === 'recorded' ? recorded.legacyMicrocompact : p.pruning === 'sliding-legacy',
  };
}

/** The window the trigger sees under the scenario's rule (engine.md §1.4; replay.md §7). */
export function triggerWindowTokens(scenario: Scenario, facts: ModelFacts): number | undefined {
  const windowTokens = scenario.params.windowTokens ?? facts.contextWindowTokens ?? undefined;
  if (windowTokens === undefined) return undefined;
  switch (scenario.params.trigger) {
    case 'freecode':
      return usableWindow(windowTokens, facts.maxOutputTokens ?? undefined);
    case 'claude-code':
      return windowTokens - Math.min(facts.maxOutputTokens ?? 20_000, 20_000);
    case 'codex':
      return Math.floor(windowTokens * 0.95);
    case 'opencode':
      return opencodeUsableWindow(windowTokens, facts.maxOutputTokens);
    default: {
      const unreachable: never = scenario.params.trigger;
      return unreachable;
    }
  }
}

/** The message a provider returns for a prompt above the window (Anthropic's wording, engine.md §5.5). */
function overflowError(promptTokens: number, windowTokens: number): Error & { status: number } {
  return Object.assign(new Error(`prompt is too long: ${promptTokens} tokens > ${windowTokens} maximum`), {
    status: 400,
  });
}

type PendingResponse = {
  readonly id: string;
  text: string;
  readonly activity: ToolActivity[];
  /** The call id of each `activity` entry, to attach results. */
  readonly callIds: string[];
  timestampMs: number;
};

/** Replays one session under one scenario. */
export function replaySession(input: ReplayInput): ReplayResult {
  const rows = new RowEmitter(input);
  return rows.result(new LogWalk(input, input.memo ?? new ReplayMemo(), rows, false).run());
}

/** What the walk counted besides its rows. */
export type WalkCounts = { readonly overflows: number; readonly failedTurns: number };

/**
 * The walk with its prompts left unsized, everything it does handed to `sink` in order
 * (`recorded-trace.ts`). Only for a walk no decision of which reads a size: the `recorded`
 * scenario without tool-result editing (`isUnsizedWalk`); `input.calibration` is never read.
 */
export function walkUnsized(input: ReplayInput, memo: ReplayMemo, sink: ReplaySink): WalkCounts {
  if (!isUnsizedWalk(input.scenario))
    throw new Error('invariant: only the recorded scenario without editing can be walked unsized');
  return new LogWalk(input, memo, sink, true).run();
}

/**
 * Whether a scenario's walk decides nothing by size: it replays the log's own compactions and
 * refusals (`recorded`), and no tool-result editor reads the prompt's size. Its sends can then be
 * sized afterwards under any calibration with the same result (replay.md §5: pruning and
 * compaction change which characters are visible, not the ratio).
 */
export function isUnsizedWalk(scenario: Scenario): boolean {
  return scenario.params.compaction === 'recorded' && scenario.params.editing.kind === 'none';
}

/**
 * The log walk: the log's items, events and requests in order. It owns only what the order
 * decides: the response being assembled, the current time and model, the request about to be
 * sent, and the run's overflow state.
 */
class LogWalk {
  private readonly session: Session;
  private readonly scenario: Scenario;
  private readonly params: EngineParams;
  private readonly mode: Scenario['params']['compaction'];
  private readonly context: CompactionDriver;
  private overflowRecovery: OverflowRecovery;
  private response: PendingResponse | null = null;
  private nextItem = 0;
  /** The log request about to be sent: what rows and compactions made meanwhile belong to. */
  private pendingRequestIndex = 0;
  private nowMs: number | null = null;
  private currentModel: string;
  /** A recorded overflow not yet followed by a successful send: the run fails if none comes. */
  private unrecoveredOverflow = false;
  private overflows = 0;
  private failedTurns = 0;
  private readonly eventsAtItem = new Map<number, HarnessEvent[]>();
  /** The log's summary items by id: a compaction event may come before its summary item. */
  private readonly summaries = new Map<string, Item & { kind: 'summary' }>();
  /** To follow `Item.parentId`: the last item appended, each call's assistant message, each result item's. */
  private lastItemId: string | null = null;
  private readonly messageOfCall = new Map<string, string>();
  private readonly messageOfResult = new Map<string, string>();
  /**
   * Whether a result item has a parent, the only ones `messageOfResult` records: without one (no
   * FreeCode rollout item has), `messageOfCall` is never read and is not kept (a map entry per call
   * of every walk).
   */
  private readonly resultsHaveParents: boolean;
  /**
   * `input.modelFacts`, read on every send: inputs come in several shapes (spreads with optional
   * fields), so a read through `input` in hot code sees several maps and is deoptimized by each new one.
   */
  private readonly modelFacts: (model: string) => ModelFacts;

  constructor(
    input: ReplayInput,
    private readonly memo: ReplayMemo,
    private readonly rows: ReplaySink,
    unsized: boolean,
  ) {
    this.session = input.session;
    this.scenario = input.scenario;
    this.modelFacts = input.modelFacts;
    this.params = engineParamsFor(input.scenario, input.recordedPolicy);
    this.mode = input.scenario.params.compaction;
    this.context = new CompactionDriver(
      this.session.id,
      this.params,
      this.scenario,
      input.calibration,
      this.rows,
      input.preCompactHookBlocks,
      this.memo,
      input.reloadBreaks === true && this.params.version === 'newest',
      unsized,
    );
    this.overflowRecovery = this.freshOverflowRecovery();
    this.currentModel = this.session.requests[0]?.model ?? 'unknown';
    let resultsHaveParents = false;
    for (const item of this.session.items) {
      if (item.kind === 'summary') this.summaries.set(item.id, item);
      else if (item.kind === 'tool_result' && item.parentId !== undefined) resultsHaveParents = true;
    }
    this.resultsHaveParents = resultsHaveParents;
    for (const event of this.session.events) {
      const list = this.eventsAtItem.get(event.itemIndex);
      if (list === undefined) this.eventsAtItem.set(event.itemIndex, [event]);
      else list.push(event);
    }
  }

  /** README.md "The walk": per request, items → response complete → events → send. */
  run(): WalkCounts {
    for (const request of this.session.requests) {
      this.pendingRequestIndex = request.index;
      this.advanceTo(request.itemIndex);
      this.finishResponse();
      this.recordedEventsAt(request.itemIndex);
      this.send(request);
    }
    this.pendingRequestIndex = this.session.requests.length;
    this.advanceTo(this.session.items.length);
    this.finishResponse();
    this.recordedEventsAt(this.session.items.length);
    this.settleRecordedOverflow();
    return { overflows: this.overflows, failedTurns: this.failedTurns };
  }

  private at(): RowContext {
    return { requestIndex: this.pendingRequestIndex, model: this.currentModel, timestampMs: this.nowMs };
  }

  private time(): number {
    return this.nowMs ?? 0;
  }

  private freshOverflowRecovery(): OverflowRecovery {
    return new OverflowRecovery({
      maxOverflowCompactions: this.params.maxOverflowCompactions,
      version: this.params.version,
    });
  }

  // ── items ────────────────────────────────────────────────────────────────────────────────

  /** Items before `end`, each preceded by the harness events recorded at its index. */
  private advanceTo(end: number): void {
    for (; this.nextItem < end; this.nextItem++) {
      const index = this.nextItem;
      this.recordedEventsAt(index);
      const item = this.session.items[index];
      if (item !== undefined) this.appendItem(item, index);
    }
  }

  private appendItem(item: Item, index: number): void {
    if (item.timestampMs !== null) this.nowMs = item.timestampMs;
    // A rewind starts a new user prompt; other items off the previous one (parallel tool calls
    // answered in another order) stay where the file puts them.
    if (
      item.kind === 'user' &&
      item.parentId !== undefined &&
      item.parentId !== null &&
      item.parentId !== this.lastItemId
    )
      this.followChain(item.parentId);
    this.lastItemId = item.id;
    switch (item.kind) {
      case 'user': {
        this.finishResponse();
        if (item.synthetic === null) this.startUserMessage(item.timestampMs);
        const message = this.memo.message(item, index);
        if (message === null) return;
        this.context.store.append(message);
        // MemoryService records the prompt and steers, not pokes or captions (engine.md §4.3).
        if (item.synthetic === null || item.synthetic === 'steer')
          this.context.memory.addMessage('user', message.text, this.time());
        return;
      }
      case 'assistant': {
        const responseId = item.responseId ?? item.id;
        if (this.response !== null && this.response.id !== responseId) this.finishResponse();
        const message = this.memo.message(item, index);
        if (message === null) return;
        if (this.response === null)
          this.response = { id: responseId, text: '', activity: [], callIds: [], timestampMs: this.time() };
        this.response.text += message.text;
        for (const call of item.toolCalls) {
          if (this.resultsHaveParents) this.messageOfCall.set(call.callId, message.id);
          this.response.activity.push(this.memo.activity(call));
          this.response.callIds.push(call.callId);
        }
        this.context.store.append(message);
        return;
      }
      case 'tool_result': {
        const holder = this.messageOfCall.get(item.callId);
        if (holder !== undefined && item.parentId !== undefined) this.messageOfResult.set(item.id, holder);
        const text = this.memo.resultText(item, index);
        this.context.attachToolResult(item, index, text);
        const response = this.response;
        const at = response === null ? -1 : response.callIds.indexOf(item.callId);
        const entry = response?.activity[at];
        if (response !== null && entry !== undefined)
          response.activity[at] = this.memo.activityWithResult(entry, item, index, text);
        return;
      }
      case 'summary':
        return;
      case 'system':
        return;
      default: {
        const unreachable: never = item;
        return unreachable;
      }
    }
  }

  /**
   * A rewind (formats.md §1.6): the item follows `parentId`, not the item before it, so the
   * requests from here on carry the chain through that parent and the abandoned branch leaves the
   * context. A parent no longer in the context (a compaction dropped it) cuts nothing. Roots are
   * not followed here: a root after items is a recorded compaction's summary (`compactAsRecorded`).
   */
  private followChain(parentId: string): void {
    const anchor = this.messageOfResult.get(parentId) ?? parentId;
    const messages = this.context.store.getMessages();
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]?.id !== anchor) continue;
      if (i < messages.length - 1) {
        this.finishResponse();
        this.context.store.replaceMessages(messages.slice(0, i + 1));
      }
      return;
    }
  }

  /** A new user message starts a new `AgentLoop` run (engine.md §5.1): fresh holds and counters. */
  private startUserMessage(timestampMs: number | null): void {
    this.settleRecordedOverflow();
    this.overflowRecovery = this.freshOverflowRecovery();
    this.context.startUserMessage(timestampMs, this.time());
  }

  /**
   * The response is complete: record it in memory, then the loop's `maybeCompact` (engine.md §5.2
   * step 8). Called wherever something that is not part of the response happens (README.md).
   */
  private finishResponse(): void {
    const response = this.response;
    if (response === null) return;
    this.response = null;
    const memory = this.context.memory;
    if (response.activity.length > 0) memory.addToolTurn(response.text, response.activity, response.timestampMs);
    else memory.addMessage('assistant', response.text, response.timestampMs);
    if (this.mode !== 'engine') return;
    const facts = this.modelFacts(this.currentModel);
    if (this.context.wantsCompaction(triggerWindowTokens(this.scenario, facts)))
      this.context.compact('threshold', this.at(), this.time());
  }

  // ── harness events ───────────────────────────────────────────────────────────────────────

  /** A run whose last send was a recorded overflow with no success after it failed (engine.md §5.4). */
  private settleRecordedOverflow(): void {
    if (!this.unrecoveredOverflow) return;
    this.unrecoveredOverflow = false;
    this.failedTurns += 1;
  }

  /** The log's own harness events, replayed as they happened in the `recorded` scenario. */
  private recordedEventsAt(itemIndex: number): void {
    if (this.mode !== 'recorded') return;
    const events = this.eventsAtItem.get(itemIndex);
    if (events === undefined) return;
    this.eventsAtItem.delete(itemIndex);
    for (const event of events) {
      switch (event.kind) {
        case 'compaction': {
          this.finishResponse();
          const summary = event.summaryItemId === null ? undefined : this.summaries.get(event.summaryItemId);
          // A summary that is a root of the log's tree (formats.md §1.6, §1.7) starts the chain
          // again: the context after the compaction is the summary and what follows it.
          this.context.compactAsRecorded(summary?.chars, this.at(), this.time(), summary?.parentId === null);
          break;
        }
        case 'overflow':
          // `context.overflow` is bookkeeping written after the compaction attempt (engine.md §5.4
          // step 5); the rejected send itself is the `model.error` before it.
          break;
        case 'model_error':
          if (isContextOverflowError(Object.assign(new Error(event.message), { status: 400 }))) {
            this.finishResponse();
            this.overflows += 1;
            this.rows.rejected(this.context.render(this.currentModel), this.at());
            this.unrecoveredOverflow = true;
          }
          break;
        case 'hook_block':
        case 'subagent':
          break;
        default: {
          const unreachable: never = event;
          return unreachable;
        }
      }
    }
  }

  // ── requests ─────────────────────────────────────────────────────────────────────────────

  private send(request: Request): void {
    if (request.agentId !== null) {
      this.rows.side(request, this.nowMs);
      return;
    }
    this.currentModel = request.model;
    if (request.timestampMs !== null) this.nowMs = request.timestampMs;
    const facts = this.modelFacts(request.model);
    const windowTokens = this.scenario.params.windowTokens ?? facts.contextWindowTokens;
    if (this.mode === 'engine' && windowTokens !== null) {
      let finalPrompt: ReplayPrompt | null = null;
      const outcome = runTurnSends(
        this.overflowRecovery,
        () => {
          const prompt = this.context.render(this.currentModel);
          const promptTokens = sized(prompt).promptTokens;
          if (promptTokens > windowTokens) {
            this.overflows += 1;
            this.rows.rejected(prompt, this.at());
            return { ok: false, error: overflowError(promptTokens, windowTokens) };
          }
          finalPrompt = prompt;
          return { ok: true };
        },
        () => this.context.compact('overflow', this.at(), this.time()),
      );
      if (outcome.kind === 'failed' || finalPrompt === null) {
        this.failedTurns += 1;
        return;
      }
      this.sendPriced(request, finalPrompt, facts);
      return;
    }
    const prompt = this.context.render(this.currentModel);
    if (this.mode === 'never' && windowTokens !== null && sized(prompt).promptTokens > windowTokens)
      this.overflows += 1;
    this.sendPriced(request, prompt, facts);
  }

  private sendPriced(request: Request, prompt: ReplayPrompt, facts: ModelFacts): void {
    const promptTokens = this.rows.priced(request, prompt, facts, this.nowMs);
    this.unrecoveredOverflow = false;
    // FreeCode's `lastMeasuredContextTokens` = the inclusive prompt of the last response (§1.5);
    // an unsized walk never reads it (no engine decision).
    if (promptTokens !== null) this.context.measured(promptTokens);
  }
}

/** A prompt of a sized walk (engine and `never` scenarios, whose decisions read sizes). */
function sized(prompt: ReplayPrompt): RenderedPrompt {
  if (prompt.rendered === null) throw new Error('invariant: a sized walk renders every prompt');
  return prompt.rendered;
}
