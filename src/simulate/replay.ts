/**
 * The replay (replay.md §4): one session under one scenario, request by request, through the
 * engine. Pure and synchronous: everything arrives as arguments, time comes from the log.
 *
 * First-order counterfactual: the agent produces the same items in the same order whatever the
 * policy; only what each request carries changes. A turn that fails under the scenario is
 * counted, its rejected sends are rows, and the log's next items still arrive.
 */
import type {
  ApplyCompactionResult,
  CompactionHooks,
  EngineParams,
  EngineVersion,
  LlmSummarizer,
  LlmSummaryRequest,
  MicrocompactDecision,
  PruningPolicy,
  ToolActivity,
} from '../engine/index.js';
import {
  ArraySessionStore,
  DEFAULT_ENGINE_PARAMS,
  MemoryService,
  NO_COMPACTION_HOOKS,
  OverflowRecovery,
  PruneState,
  applyMicrocompact,
  applyPruningPolicy,
  isContextOverflowError,
  keepLastNUserTurns,
  pruneStateResetsEachUserMessage,
  runCompaction,
  runTurnSends,
  timeBasedMicrocompact,
  usableWindow,
} from '../engine/index.js';
import type { HarnessEvent, Item, Request, Session } from '../session/model.js';
import type { CacheRules, CacheTtl } from './cache-rules.js';
import type { CacheOutcome, CacheState, Segment } from './cache-model.js';
import { applyCacheRequest, createCacheState } from './cache-model.js';
import type { TokenCalibration } from './calibrate.js';
import { tokensForChars } from './calibrate.js';
import type { RenderedPrompt, ReplayMessage, SummaryBlock } from './provider-view.js';
import { SUMMARY_BLOCK_PREFIX, messageForItem, renderPrompt, toolResultText, withToolResult } from './provider-view.js';
import type { Scenario } from './scenario.js';

/** What the replay needs to know of a model: its window and its provider's cache rules. */
export type ModelFacts = {
  readonly contextWindowTokens: number | null;
  readonly maxOutputTokens: number | null;
  readonly rules: CacheRules;
};

/** The pruning the agent actually ran, resolved per session (see `recorded-policy.ts`). */
export type RecordedPolicy = {
  readonly pruning: PruningPolicy;
  readonly legacyMicrocompact: boolean;
  readonly version: EngineVersion;
  /** One line on how it was chosen, for reports. */
  readonly basis: string;
};

export type ReplayInput = {
  readonly session: Session;
  readonly scenario: Scenario;
  readonly calibration: TokenCalibration;
  readonly recordedPolicy: RecordedPolicy;
  /** Facts of every model the session uses (a pure lookup). */
  readonly modelFacts: (model: string) => ModelFacts;
  /** Whether the session's PreCompact hook blocks (it did every time it ran in the log). */
  readonly preCompactHookBlocks: boolean;
  /**
   * Whether the static block was already cached when the session began (earlier sessions of the
   * same agent share it): the log's first request read from the cache. Optional; default cold.
   */
  readonly warmStaticBlock?: boolean;
  /** Keep each priced prompt's segments in the result, so `repriceReplay` can price another TTL. */
  readonly keepPrompts?: boolean;
};

/** A prompt the cache model priced, kept so the same replay can be priced under another TTL. */
export type PricedPrompt = {
  readonly rowIndex: number;
  readonly segments: readonly Segment[];
  readonly atMs: number;
  readonly model: string;
  readonly rules: CacheRules;
};

export type ReplayRowKind = 'request' | 'summarize' | 'rejected_overflow';

/** One provider request of the replay (replay.md §8); a rejected send bills nothing. */
export type ReplayRow = {
  readonly rowIndex: number;
  /** The log's request this row replays; null for a modelled summarizer call or a rejected send. */
  readonly sourceRequestIndex: number | null;
  /** The log's request this row belongs to: the one it replays, or the one it was made for. */
  readonly requestIndex: number;
  readonly kind: ReplayRowKind;
  readonly model: string;
  readonly timestampMs: number | null;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
  readonly contextTokensAfter: number;
  readonly compactionBefore: boolean;
  readonly overflowRetries: number;
  /** Calibration inputs: characters and sized units after the static block, and image tokens. */
  readonly visibleChars: number;
  readonly visibleUnits: number;
  readonly fixedTokens: number;
};

export type ReplayCompactionTrigger = 'threshold' | 'overflow' | 'manual' | 'recorded';

/** One compaction attempt (replay.md §8), including those a hook blocked. */
export type ReplayCompaction = {
  /** Index of the next row: the compaction happened before it. */
  readonly rowIndex: number;
  /** The log's request it preceded (the request count when it came after the last one). */
  readonly requestIndex: number;
  readonly trigger: ReplayCompactionTrigger;
  readonly promptTokensBefore: number;
  readonly promptTokensAfter: number;
  readonly estimateTokensBefore: number;
  readonly estimateTokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly summaryTokens: number;
  readonly hookBlocked: boolean;
  readonly compacted: boolean;
};

export type ReplayResult = {
  readonly rows: readonly ReplayRow[];
  readonly compactions: readonly ReplayCompaction[];
  /** Sends rejected because the prompt exceeded the window. */
  readonly overflows: number;
  /** Turns that still could not fit after recovery (replay.md §4 step 5). */
  readonly failedTurns: number;
  readonly summarizeRequests: number;
  /** With `keepPrompts`: every row the cache model priced, in order. */
  readonly pricedPrompts?: readonly PricedPrompt[];
};

/** The engine parameters a scenario stands for, with its target and trigger rule folded in. */
export function engineParamsFor(scenario: Scenario, recorded: RecordedPolicy): EngineParams {
  const p = scenario.params;
  const pruning: PruningPolicy =
    p.pruning === 'recorded'
      ? recorded.pruning
      : p.pruning === 'sliding-legacy'
        ? { kind: 'sliding-legacy', keepRecentResponses: 2, capChars: 1_000 }
        : { kind: p.pruning };
  return {
    ...DEFAULT_ENGINE_PARAMS,
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
    default: {
      const unreachable: never = scenario.params.trigger;
      return unreachable;
    }
  }
}

/** The message a provider returns for a prompt above the window (Anthropic's wording, engine.md §5.5). */
function overflowError(promptTokens: number, windowTokens: number): Error & { status: number } {
  return Object.assign(new Error(`prompt is too long: ${promptTokens} tokens > ${windowTokens} maximum`), { status: 400 });
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
  return new Replay(input).run();
}

class Replay {
  private readonly session: Session;
  private readonly scenario: Scenario;
  private readonly calibration: TokenCalibration;
  private readonly params: EngineParams;
  private readonly mode: Scenario['params']['compaction'];
  private readonly store = new ArraySessionStore<ReplayMessage>();
  private readonly memory: MemoryService;
  private readonly prune = new PruneState();
  private readonly cache: CacheState = createCacheState();
  private overflowRecovery: OverflowRecovery;
  private microcompact: MicrocompactDecision = { kind: 'not-idle' };
  private summary: SummaryBlock | null = null;
  private summaryCount = 0;
  private lastMeasuredTokens = 0;
  private response: PendingResponse | null = null;
  private nextItem = 0;
  /** The log request about to be sent: what rows and compactions made meanwhile belong to. */
  private pendingRequestIndex = 0;
  private nowMs: number | null = null;
  private currentModel: string;
  private compactionBefore = false;
  private retriesBeforeNextRow = 0;
  /** A recorded overflow not yet followed by a successful send: the run fails if none comes. */
  private unrecoveredOverflow = false;
  private readonly rows: ReplayRow[] = [];
  private readonly pricedPrompts: PricedPrompt[] = [];
  private readonly compactions: ReplayCompaction[] = [];
  private overflows = 0;
  private failedTurns = 0;
  private summarizeRequests = 0;
  private readonly eventsAtItem = new Map<number, HarnessEvent[]>();
  private readonly summaryCharsByItemId = new Map<string, number>();

  constructor(private readonly input: ReplayInput) {
    this.session = input.session;
    this.scenario = input.scenario;
    this.calibration = input.calibration;
    this.params = engineParamsFor(input.scenario, input.recordedPolicy);
    this.mode = input.scenario.params.compaction;
    const hooks: CompactionHooks = input.preCompactHookBlocks
      ? { preCompact: () => ({ allowed: false, reason: 'PreCompact hook (as recorded)' }), postCompact: () => undefined }
      : NO_COMPACTION_HOOKS;
    this.memory = new MemoryService(this.session.id, { params: this.params, hooks });
    this.overflowRecovery = new OverflowRecovery({ maxOverflowCompactions: this.params.maxOverflowCompactions, version: this.params.version });
    this.currentModel = this.session.requests[0]?.model ?? 'unknown';
    for (const event of this.session.events) {
      const list = this.eventsAtItem.get(event.itemIndex);
      if (list === undefined) this.eventsAtItem.set(event.itemIndex, [event]);
      else list.push(event);
    }
  }

  run(): ReplayResult {
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
    return {
      rows: this.rows,
      compactions: this.compactions,
      overflows: this.overflows,
      failedTurns: this.failedTurns,
      summarizeRequests: this.summarizeRequests,
      ...(this.input.keepPrompts === true ? { pricedPrompts: this.pricedPrompts } : {}),
    };
  }

  // ── items ────────────────────────────────────────────────────────────────────────────────

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
    switch (item.kind) {
      case 'user': {
        this.finishResponse();
        if (item.synthetic === null) this.startUserMessage(item.timestampMs);
        const message = messageForItem(item, index);
        if (message === null) return;
        this.store.append(message);
        // MemoryService records the prompt and steers, not pokes or captions (engine.md §4.3).
        if (item.synthetic === null || item.synthetic === 'steer') this.memory.addMessage('user', message.text, this.time());
        return;
      }
      case 'assistant': {
        const responseId = item.responseId ?? item.id;
        if (this.response !== null && this.response.id !== responseId) this.finishResponse();
        const message = messageForItem(item, index);
        if (message === null) return;
        if (this.response === null) this.response = { id: responseId, text: '', activity: [], callIds: [], timestampMs: this.time() };
        this.response.text += message.text;
        for (const call of item.toolCalls) {
          this.response.activity.push({ tool: call.name, args: parseArgs(call.argsJson) });
          this.response.callIds.push(call.callId);
        }
        this.store.append(message);
        return;
      }
      case 'tool_result': {
        const text = toolResultText(item);
        this.attachToolResult(item.callId, text, item.failed);
        const response = this.response;
        const at = response === null ? -1 : response.callIds.indexOf(item.callId);
        const entry = response?.activity[at];
        if (response !== null && entry !== undefined) response.activity[at] = item.failed ? { ...entry, error: text } : { ...entry, output: text };
        return;
      }
      case 'summary':
        this.summaryCharsByItemId.set(item.id, item.chars);
        return;
      case 'system':
        return;
      default: {
        const unreachable: never = item;
        return unreachable;
      }
    }
  }

  private attachToolResult(callId: string, text: string, failed: boolean): void {
    const messages = this.store.getMessages();
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (message === undefined || message.role !== 'assistant') continue;
      const updated = withToolResult(message, callId, text, failed);
      if (updated === null) continue;
      const next = [...messages];
      next[i] = updated;
      this.store.replaceMessages(next);
      return;
    }
  }

  /** A new user message starts a new `AgentLoop` run (engine.md §5.1): fresh holds and counters. */
  private startUserMessage(timestampMs: number | null): void {
    this.settleRecordedOverflow();
    this.memory.startUserMessage();
    this.overflowRecovery = new OverflowRecovery({ maxOverflowCompactions: this.params.maxOverflowCompactions, version: this.params.version });
    if (pruneStateResetsEachUserMessage(this.params.version)) this.prune.reset();
    if (this.params.legacyMicrocompact) {
      const history = this.store.getMessages();
      const last = history[history.length - 1];
      this.microcompact = timeBasedMicrocompact(history, last?.timestampMs ?? null, timestampMs ?? this.time());
    }
  }

  /** The response is complete: record it in memory, then the loop's `maybeCompact` (engine.md §5.2 step 8). */
  private finishResponse(): void {
    const response = this.response;
    if (response === null) return;
    this.response = null;
    if (response.activity.length > 0) this.memory.addToolTurn(response.text, response.activity, response.timestampMs);
    else this.memory.addMessage('assistant', response.text, response.timestampMs);
    if (this.mode !== 'engine') return;
    const facts = this.input.modelFacts(this.currentModel);
    if (this.memory.checkCompaction(triggerWindowTokens(this.scenario, facts), this.lastMeasuredTokens).kind === 'compact') {
      this.compactNow('threshold');
    }
  }

  // ── compaction ───────────────────────────────────────────────────────────────────────────

  private compactNow(trigger: 'threshold' | 'overflow'): ApplyCompactionResult {
    const before = this.render();
    const messagesBefore = this.store.getMessages().length;
    const summarizer = this.modelledSummarizer();
    const outcome = runCompaction({
      memory: this.memory,
      store: this.store,
      compactOptions: { nowMs: this.time(), llm: summarizer.llm },
      preserveRecentTurns: this.params.preserveRecentTurns,
      version: this.params.version,
      trigger: 'auto',
    });
    const result = outcome.result;
    let summaryTokens = 0;
    if (outcome.kind === 'compacted') {
      const content = result.compaction.kind === 'compacted' ? result.compaction.summary.content : '';
      const llmRequest = summarizer.request();
      const capChars = llmRequest === null ? Number.POSITIVE_INFINITY : Math.ceil(llmRequest.maxTokens / this.calibration.tokensPerChar);
      this.setSummary(Math.min(content.length, capChars));
      summaryTokens = tokensForChars(this.summary?.chars ?? 0, this.calibration);
      this.lastMeasuredTokens = 0;
      this.compactionBefore = true;
      if (llmRequest !== null) this.emitSummarize(llmRequest, summaryTokens);
    }
    const after = this.render();
    this.compactions.push({
      rowIndex: this.rows.length,
      requestIndex: this.pendingRequestIndex,
      trigger,
      promptTokensBefore: before.promptTokens,
      promptTokensAfter: outcome.kind === 'compacted' ? after.promptTokens : before.promptTokens,
      estimateTokensBefore: result.tokensBefore,
      estimateTokensAfter: result.tokensAfter,
      messagesBefore,
      messagesAfter: this.store.getMessages().length,
      summaryTokens,
      hookBlocked: result.compaction.kind === 'blocked',
      compacted: outcome.kind === 'compacted',
    });
    return result;
  }

  /** A run whose last send was a recorded overflow with no success after it failed (engine.md §5.4). */
  private settleRecordedOverflow(): void {
    if (!this.unrecoveredOverflow) return;
    this.unrecoveredOverflow = false;
    this.failedTurns += 1;
  }

  /**
   * The LLM summarizer as the replay models it: the call is not made. The engine builds its
   * request (priced as a row of its own) and, told "no", keeps the heuristic summary, whose size
   * stands for the LLM's, capped at its 1,024 output tokens (engine.md §3.3, §3.4).
   */
  private modelledSummarizer(): { readonly llm: LlmSummarizer | undefined; readonly request: () => LlmSummaryRequest | null } {
    if (this.scenario.params.summarizer !== 'llm') return { llm: undefined, request: () => null };
    let captured: LlmSummaryRequest | null = null;
    return {
      llm: {
        model: this.currentModel,
        summarize: (request: LlmSummaryRequest) => {
          captured = request;
          return { ok: false, error: 'modelled by the replay' };
        },
      },
      request: () => captured,
    };
  }

  private setSummary(contentChars: number): void {
    this.summaryCount += 1;
    this.summary = { id: `summary#${this.summaryCount}`, chars: SUMMARY_BLOCK_PREFIX.length + contentChars };
  }

  private emitSummarize(request: LlmSummaryRequest, summaryTokens: number): void {
    const promptTokens = tokensForChars(request.system.length + request.prompt.length, this.calibration);
    const outputTokens = Math.min(summaryTokens, request.maxTokens);
    this.summarizeRequests += 1;
    // A summarizer call carries no cache markers and shares no prefix with the session: uncached.
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: null,
      requestIndex: this.pendingRequestIndex,
      kind: 'summarize',
      model: this.currentModel,
      timestampMs: this.nowMs,
      promptTokens,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      uncachedInputTokens: promptTokens,
      outputTokens,
      contextTokensAfter: promptTokens + outputTokens,
      compactionBefore: false,
      overflowRetries: 0,
      visibleChars: 0,
      visibleUnits: 0,
      fixedTokens: 0,
    });
  }

  /** The log's own harness events, replayed as they happened in the `recorded` scenario. */
  private recordedEventsAt(itemIndex: number): void {
    if (this.mode !== 'recorded') return;
    const events = this.eventsAtItem.get(itemIndex);
    if (events === undefined) return;
    this.eventsAtItem.delete(itemIndex);
    for (const event of events) {
      switch (event.kind) {
        case 'compaction':
          this.finishResponse();
          this.applyRecordedCompaction(event);
          break;
        case 'overflow':
          // `context.overflow` is bookkeeping written after the compaction attempt (engine.md §5.4
          // step 5); the rejected send itself is the `model.error` before it.
          break;
        case 'model_error':
          if (isContextOverflowError(Object.assign(new Error(event.message), { status: 400 }))) {
            this.finishResponse();
            this.overflows += 1;
            this.pushRejected(this.render());
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

  /**
   * A compaction where the log shows one: the store trimmed as FreeCode trims it
   * (`keepLastNUserTurns`, engine.md §2.3), the summary of the recorded size when the log kept
   * it (memory.json), else the engine's own summary; the memory transcript follows the engine.
   */
  private applyRecordedCompaction(event: HarnessEvent & { kind: 'compaction' }): void {
    const before = this.render();
    const stored = this.store.getMessages();
    const messagesBefore = stored.length;
    const summarizer = this.modelledSummarizer();
    const result = this.memory.compact({ nowMs: this.time(), llm: summarizer.llm });
    const kept = keepLastNUserTurns(stored, this.params.preserveRecentTurns, this.params.version);
    if (kept.length < stored.length) this.store.replaceMessages(kept);
    const recordedChars = event.summaryItemId === null ? undefined : this.summaryCharsByItemId.get(event.summaryItemId);
    const engineChars = result.kind === 'compacted' ? result.summary.content.length : this.summary === null ? 0 : this.summary.chars - SUMMARY_BLOCK_PREFIX.length;
    this.setSummary(recordedChars ?? engineChars);
    this.lastMeasuredTokens = 0;
    this.compactionBefore = true;
    const summaryTokens = tokensForChars(this.summary?.chars ?? 0, this.calibration);
    const llmRequest = summarizer.request();
    if (llmRequest !== null) this.emitSummarize(llmRequest, summaryTokens);
    const after = this.render();
    this.compactions.push({
      rowIndex: this.rows.length,
      requestIndex: this.pendingRequestIndex,
      trigger: 'recorded',
      promptTokensBefore: before.promptTokens,
      promptTokensAfter: after.promptTokens,
      estimateTokensBefore: result.tokenCountBefore,
      estimateTokensAfter: result.tokenCountAfter,
      messagesBefore,
      messagesAfter: this.store.getMessages().length,
      summaryTokens,
      hookBlocked: false,
      compacted: true,
    });
  }

  // ── requests ─────────────────────────────────────────────────────────────────────────────

  /** The provider-facing copy, pruned as the scenario prunes, rendered as segments. */
  private render(): RenderedPrompt {
    let messages: readonly ReplayMessage[] = this.store.getMessages();
    if (this.params.legacyMicrocompact) messages = applyMicrocompact(messages, this.microcompact);
    const pruned = applyPruningPolicy(messages, this.params.pruning, this.prune, this.params.toolResultBudgetChars);
    return renderPrompt(`static:${this.currentModel}`, this.summary, pruned.messages, this.calibration);
  }

  private send(request: Request): void {
    if (request.agentId !== null) {
      this.pushSideRequest(request);
      return;
    }
    this.currentModel = request.model;
    if (request.timestampMs !== null) this.nowMs = request.timestampMs;
    const facts = this.input.modelFacts(request.model);
    const windowTokens = this.scenario.params.windowTokens ?? facts.contextWindowTokens;
    if (this.mode === 'engine' && windowTokens !== null) {
      let finalPrompt: RenderedPrompt | null = null;
      const outcome = runTurnSends(
        this.overflowRecovery,
        () => {
          const prompt = this.render();
          if (prompt.promptTokens > windowTokens) {
            this.overflows += 1;
            this.pushRejected(prompt);
            return { ok: false, error: overflowError(prompt.promptTokens, windowTokens) };
          }
          finalPrompt = prompt;
          return { ok: true };
        },
        () => this.compactNow('overflow'),
      );
      if (outcome.kind === 'failed' || finalPrompt === null) {
        this.failedTurns += 1;
        return;
      }
      this.pushPriced(request, finalPrompt, facts);
      return;
    }
    const prompt = this.render();
    if (windowTokens !== null && prompt.promptTokens > windowTokens && this.mode === 'never') this.overflows += 1;
    this.pushPriced(request, prompt, facts);
  }

  /**
   * A side request (a subagent's, a memory job's, a cache warm-up) does not carry the session's
   * context, so no policy changes it: every scenario bills it as measured (first-order assumption).
   */
  private pushSideRequest(request: Request): void {
    const usage = request.usage;
    if (usage === null) return;
    const write1h = usage.cacheWrite1hTokens ?? 0;
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: request.index,
      requestIndex: request.index,
      kind: 'request',
      model: request.model,
      timestampMs: request.timestampMs ?? this.nowMs,
      promptTokens: usage.promptTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWrite5mTokens: usage.cacheWrite5mTokens ?? usage.cacheWriteTokens - write1h,
      cacheWrite1hTokens: write1h,
      uncachedInputTokens: usage.uncachedInputTokens,
      outputTokens: usage.outputTokens,
      contextTokensAfter: usage.promptTokens + usage.outputTokens,
      compactionBefore: false,
      overflowRetries: 0,
      visibleChars: 0,
      visibleUnits: 0,
      fixedTokens: 0,
    });
  }

  private pushRejected(prompt: RenderedPrompt): void {
    this.retriesBeforeNextRow += 1;
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: null,
      requestIndex: this.pendingRequestIndex,
      kind: 'rejected_overflow',
      model: this.currentModel,
      timestampMs: this.nowMs,
      promptTokens: prompt.promptTokens,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      uncachedInputTokens: 0,
      outputTokens: 0,
      contextTokensAfter: prompt.promptTokens,
      compactionBefore: this.takeCompactionBefore(),
      overflowRetries: 0,
      visibleChars: prompt.visibleChars,
      visibleUnits: prompt.visibleUnits,
      fixedTokens: prompt.fixedTokens,
    });
  }

  private pushPriced(request: Request, prompt: RenderedPrompt, facts: ModelFacts): void {
    const priced: PricedPrompt = { rowIndex: this.rows.length, segments: prompt.segments, atMs: this.nowMs ?? 0, model: request.model, rules: facts.rules };
    if (this.input.keepPrompts === true) this.pricedPrompts.push(priced);
    const outcome = priceThroughCache(this.cache, priced, this.scenario.params.ttl, this.input.warmStaticBlock === true);
    const outputTokens = request.usage?.outputTokens ?? this.estimatedOutputTokens(request);
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: request.index,
      requestIndex: request.index,
      kind: 'request',
      model: request.model,
      timestampMs: this.nowMs,
      promptTokens: outcome.promptTokens,
      cacheReadTokens: outcome.cacheReadTokens,
      cacheWrite5mTokens: outcome.cacheWrite5mTokens,
      cacheWrite1hTokens: outcome.cacheWrite1hTokens,
      uncachedInputTokens: outcome.uncachedInputTokens,
      outputTokens,
      contextTokensAfter: outcome.promptTokens + outputTokens,
      compactionBefore: this.takeCompactionBefore(),
      overflowRetries: this.retriesBeforeNextRow,
      visibleChars: prompt.visibleChars,
      visibleUnits: prompt.visibleUnits,
      fixedTokens: prompt.fixedTokens,
    });
    this.retriesBeforeNextRow = 0;
    this.unrecoveredOverflow = false;
    // FreeCode's `lastMeasuredContextTokens` = the inclusive prompt of the last response (§1.5).
    this.lastMeasuredTokens = outcome.promptTokens;
  }

  private takeCompactionBefore(): boolean {
    const value = this.compactionBefore;
    this.compactionBefore = false;
    return value;
  }

  /** Output of a request the log did not measure: its response's characters at the calibrated ratio. */
  private estimatedOutputTokens(request: Request): number {
    let chars = 0;
    const end = this.session.requests[request.index + 1]?.itemIndex ?? this.session.items.length;
    for (let i = request.itemIndex; i < end; i++) {
      const item = this.session.items[i];
      if (item === undefined || item.kind === 'user') break;
      if (item.kind === 'assistant') chars += item.chars;
    }
    return tokensForChars(chars, this.calibration);
  }

  private time(): number {
    return this.nowMs ?? 0;
  }
}

function parseArgs(argsJson: string): unknown {
  try {
    return JSON.parse(argsJson) as unknown;
  } catch {
    return argsJson;
  }
}

/**
 * One priced prompt through the cache. A session that starts warm finds its static block already
 * cached at its first request: the environment, not the policy (another session left it there).
 */
function priceThroughCache(cache: CacheState, priced: PricedPrompt, ttl: CacheTtl, warmStaticBlock: boolean): CacheOutcome {
  if (warmStaticBlock && cache.model === null) {
    applyCacheRequest(cache, { prompt: priced.segments.slice(0, 1), atMs: priced.atMs, model: priced.model, rules: priced.rules, ttl });
  }
  return applyCacheRequest(cache, { prompt: priced.segments, atMs: priced.atMs, model: priced.model, rules: priced.rules, ttl });
}

/**
 * The same replay priced under another cache TTL. The engine's decisions never read the cache
 * (the measured count is the prompt size, whatever was cached), so only the cache classes of
 * the priced rows change; a sweep over TTLs replays once. Needs a result made with `keepPrompts`.
 */
export function repriceReplay(result: ReplayResult, ttl: CacheTtl, warmStaticBlock: boolean): ReplayResult {
  if (result.pricedPrompts === undefined) throw new Error('invariant: repriceReplay needs a replay made with keepPrompts');
  const cache = createCacheState();
  const rows = [...result.rows];
  for (const priced of result.pricedPrompts) {
    const row = rows[priced.rowIndex];
    if (row === undefined) throw new Error('invariant: a priced prompt names a row of its replay');
    const outcome = priceThroughCache(cache, priced, ttl, warmStaticBlock);
    rows[priced.rowIndex] = {
      ...row,
      cacheReadTokens: outcome.cacheReadTokens,
      cacheWrite5mTokens: outcome.cacheWrite5mTokens,
      cacheWrite1hTokens: outcome.cacheWrite1hTokens,
      uncachedInputTokens: outcome.uncachedInputTokens,
    };
  }
  return { ...result, rows };
}
