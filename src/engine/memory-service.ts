/**
 * `MemoryService` (engine.md §4): the estimated transcript, its compaction trigger with the two
 * 5,000-token holds, and `compact` with hooks, summarizers and chaining. Synchronous; time, the
 * store and the hooks are injected. FreeCode builds a new service for every user message, so the
 * holds live one run: call `startUserMessage()` (or build a new service) at each user message.
 */
import type { CompactionHooks } from './compaction-hooks.js';
import { NO_COMPACTION_HOOKS } from './compaction-hooks.js';
import type { CompactionResult, SummarizerUsed } from './compaction-result.js';
import type { LlmSummarizer, LlmSummaryOutcome, LlmSummaryRequest } from './llm-summary.js';
import { acceptLlmSummary, buildLlmSummaryRequest } from './llm-summary.js';
import type { CompactionSummary, MemoryMessage, MemoryRole, MemoryState } from './memory-state.js';
import { freshMemoryState } from './memory-state.js';
import type { MemoryStore } from './memory-store.js';
import { NULL_MEMORY_STORE } from './memory-store.js';
import type { EngineParams } from './params.js';
import { DEFAULT_ENGINE_PARAMS } from './params.js';
import type { SelectionResult } from './selector.js';
import { selectForCompaction } from './selector.js';
import type { SummarizeInput, SummaryMemo } from './summarizer.js';
import { makeSummary, summarizeMessages } from './summarizer.js';
import { compactThresholdTokens, estimateTokenCount, shouldCompact as reachesCompactThreshold } from './tokens.js';
import type { ToolActivity, ToolLineMemo, TurnMemo } from './tool-transcript.js';
import { memoizedTurnForMemory } from './tool-transcript.js';

export interface MemoryServiceOptions {
  readonly params?: EngineParams;
  readonly store?: MemoryStore;
  readonly hooks?: CompactionHooks;
  /** Rendered tool-transcript lines to reuse across services fed the same activity entries (results unchanged). */
  readonly toolLines?: ToolLineMemo;
  /** The heuristic summarizer's readings of contents, to reuse across services that summarize the same contents. */
  readonly summaryMemo?: SummaryMemo;
  /** Memory entries of tool-calling responses, to reuse across services fed the same activity entries (`TurnMemo`). */
  readonly turns?: TurnMemo;
}

export interface CompactOptions {
  /** Epoch ms used for the summary id, `createdAt` and `lastCompactionAt`. */
  readonly nowMs: number;
  /** When present, asked for the summary; any failure keeps the heuristic one (§3.4). */
  readonly llm?: LlmSummarizer | undefined;
}

/** The async form of `CompactOptions`, for a live provider call. */
export interface CompactAsyncOptions {
  readonly nowMs: number;
  readonly llm?:
    | {
        readonly model: string | undefined;
        readonly summarize: (request: LlmSummaryRequest) => Promise<LlmSummaryOutcome>;
      }
    | undefined;
}

/** Why the trigger did or did not fire (the boolean FreeCode returns is `kind === 'compact'`). */
export type CompactionCheck =
  | { readonly kind: 'compact'; readonly effectiveTokens: number; readonly thresholdTokens: number }
  | { readonly kind: 'below-threshold'; readonly effectiveTokens: number; readonly thresholdTokens: number }
  | {
      readonly kind: 'held';
      readonly hold: 'post-compaction' | 'blocked';
      readonly effectiveTokens: number;
      /** The hold releases once the effective count reaches this. */
      readonly releaseAtTokens: number;
    };

export interface MemoryHolds {
  readonly blockedAtTokenCount: number | null;
  readonly compactedAtTokenCount: number | null;
}

type CompactionPlan =
  | { readonly kind: 'final'; readonly result: CompactionResult }
  | {
      readonly kind: 'ready';
      readonly selection: SelectionResult<MemoryMessage>;
      readonly input: SummarizeInput;
      readonly heuristic: CompactionSummary;
    };

const AUG_TRUNCATION_MARKER = '\n[tool output truncated for memory]';

export class MemoryService {
  private readonly params: EngineParams;
  private readonly store: MemoryStore;
  private readonly hooks: CompactionHooks;
  private readonly toolLines: ToolLineMemo | undefined;
  private readonly summaryMemo: SummaryMemo | undefined;
  private readonly turns: TurnMemo | undefined;
  private current: MemoryState;
  /**
   * Whether `current` was handed out (the `state` getter, a store that keeps what it saves, the
   * loaded state): its messages array is then copied before the next append. Otherwise appends go
   * into it in place (one copy per hand-out, not one per message: a replay appends every response
   * of a session and reads the state only to compact).
   */
  private shared = true;
  /**
   * Ids in the transcript that this instance did not make (a loaded state's): the only ones a new
   * id can meet, since the ids it makes differ from each other by their counter (`newMessageId`).
   */
  private readonly foreignIds = new Set<string>();
  private blockedAtTokenCount: number | undefined;
  private compactedAtTokenCount: number | undefined;
  private lastEffectiveTokenCount = 0;
  private idSequence = 0;

  /** Loads the session's state from the store; a missing or unreadable state starts fresh (§4.1). */
  constructor(sessionId: string, options: MemoryServiceOptions = {}) {
    this.params = options.params ?? DEFAULT_ENGINE_PARAMS;
    this.store = options.store ?? NULL_MEMORY_STORE;
    this.hooks = options.hooks ?? NO_COMPACTION_HOOKS;
    this.toolLines = options.toolLines;
    this.summaryMemo = options.summaryMemo;
    this.turns = options.turns;
    this.current = this.store.load(sessionId) ?? freshMemoryState(sessionId);
    for (const message of this.current.messages) this.foreignIds.add(message.id);
  }

  /** The current state (treat as immutable: every change replaces it). */
  get state(): MemoryState {
    this.shared = true;
    return this.current;
  }

  /** The instance-only holds (§4.4); never persisted. */
  get holds(): MemoryHolds {
    return {
      blockedAtTokenCount: this.blockedAtTokenCount ?? null,
      compactedAtTokenCount: this.compactedAtTokenCount ?? null,
    };
  }

  /** What a fresh per-message service would have: no holds, no remembered count (§4.4, §13.8). */
  startUserMessage(): void {
    this.blockedAtTokenCount = undefined;
    this.compactedAtTokenCount = undefined;
    this.lastEffectiveTokenCount = 0;
  }

  /**
   * Records a message with `tokenCount = estimateTokenCount(content)`, adds it to the running
   * estimate and saves the whole state (§4.3). The Aug version truncates an assistant message
   * starting with "Tool " above `maxToolOutputChars` (§4.3).
   */
  addMessage(role: MemoryRole, content: string, timestampMs: number): MemoryMessage {
    const stored = this.normalizeContent(role, content);
    const message: MemoryMessage = {
      id: this.newMessageId(timestampMs),
      role,
      content: stored,
      timestamp: timestampMs,
      tokenCount: estimateTokenCount(stored),
    };
    if (this.shared) {
      this.current = {
        ...this.current,
        messages: [...this.current.messages, message],
        tokenCount: this.current.tokenCount + message.tokenCount,
      };
    } else {
      // Not handed out since this service made it (`shared`): updated in place, not copied per message.
      this.current.messages.push(message);
      this.current.tokenCount += message.tokenCount;
    }
    this.save();
    return message;
  }

  /**
   * Records a tool-calling response: newest renders text + tool transcript (§3.5); the Aug
   * version records the text, or the stub `[Executed <N> tools]` when there is none (§4.3).
   */
  addToolTurn(assistantText: string, activity: readonly ToolActivity[], timestampMs: number): MemoryMessage {
    switch (this.params.version) {
      case 'newest':
        return this.addMessage(
          'assistant',
          memoizedTurnForMemory(this.turns, assistantText, activity, this.params.maxToolOutputChars, this.toolLines),
          timestampMs,
        );
      case 'aug':
        return this.addMessage(
          'assistant',
          assistantText !== '' ? assistantText : `[Executed ${activity.length} tools]`,
          timestampMs,
        );
      default: {
        const unreachable: never = this.params.version;
        return unreachable;
      }
    }
  }

  /**
   * The trigger with its guards (§4.4): the measured count when > 0, else the estimate; the
   * post-compaction hold (newest only) and the blocked hold, each `holdGrowthTokens` wide; then
   * the threshold of §1.2.
   */
  checkCompaction(contextLimitTokens: number | undefined, measuredTokens?: number): CompactionCheck {
    const effectiveTokens =
      measuredTokens !== undefined && measuredTokens > 0 ? measuredTokens : this.current.tokenCount;
    this.lastEffectiveTokenCount = effectiveTokens;
    const growthTokens = this.params.holdGrowthTokens;

    if (this.params.version === 'newest' && this.compactedAtTokenCount !== undefined) {
      if (effectiveTokens < this.compactedAtTokenCount) {
        this.compactedAtTokenCount = undefined;
      } else if (effectiveTokens < this.compactedAtTokenCount + growthTokens) {
        return {
          kind: 'held',
          hold: 'post-compaction',
          effectiveTokens,
          releaseAtTokens: this.compactedAtTokenCount + growthTokens,
        };
      }
    }
    if (this.blockedAtTokenCount !== undefined && effectiveTokens < this.blockedAtTokenCount + growthTokens) {
      return {
        kind: 'held',
        hold: 'blocked',
        effectiveTokens,
        releaseAtTokens: this.blockedAtTokenCount + growthTokens,
      };
    }
    // The §1.2 trigger itself is `tokens.ts`'s, one source for the pure function and the service.
    const thresholdTokens = compactThresholdTokens(contextLimitTokens, this.params);
    return reachesCompactThreshold(effectiveTokens, contextLimitTokens, this.params)
      ? { kind: 'compact', effectiveTokens, thresholdTokens }
      : { kind: 'below-threshold', effectiveTokens, thresholdTokens };
  }

  /** FreeCode's boolean `shouldCompact(model, contextLimit, measuredTokens)` (§4.4). */
  shouldCompact(contextLimitTokens: number | undefined, measuredTokens?: number): boolean {
    return this.checkCompaction(contextLimitTokens, measuredTokens).kind === 'compact';
  }

  /**
   * Compacts the transcript (§4.5): nothing selected → success without summary; a blocking
   * PreCompact hook → the blocked result, history intact, blocked hold set; else the heuristic
   * summary (replaced by the LLM's when it succeeds), the preserved tail kept, state saved,
   * PostCompact run.
   */
  compact(options: CompactOptions): CompactionResult {
    const plan = this.prepare(options.nowMs);
    if (plan.kind === 'final') return plan.result;
    if (options.llm === undefined) return this.commit(plan, plan.heuristic, { kind: 'heuristic' }, options.nowMs);
    const request = buildLlmSummaryRequest(plan.input, options.llm.model);
    return this.finishWithLlm(plan, request, options.llm.summarize(request), options.nowMs);
  }

  /** `compact` with an async LLM call, awaited where FreeCode awaits it (after the PreCompact hook). */
  async compactAsync(options: CompactAsyncOptions): Promise<CompactionResult> {
    const plan = this.prepare(options.nowMs);
    if (plan.kind === 'final') return plan.result;
    if (options.llm === undefined) return this.commit(plan, plan.heuristic, { kind: 'heuristic' }, options.nowMs);
    const request = buildLlmSummaryRequest(plan.input, options.llm.model);
    return this.finishWithLlm(plan, request, await options.llm.summarize(request), options.nowMs);
  }

  /** The summary the loop sends to the model: only the latest one (§3.4). */
  latestSummary(): CompactionSummary | undefined {
    return this.current.summaries.at(-1);
  }

  /** `getPromptContext()` (§4.5); the loop reads only `summary`. */
  getPromptContext(): {
    readonly summary: string | undefined;
    readonly recentMessages: readonly MemoryMessage[];
    readonly tokenCount: number;
  } {
    return {
      summary: this.latestSummary()?.content,
      recentMessages: [...this.current.messages],
      tokenCount: this.current.tokenCount,
    };
  }

  private prepare(nowMs: number): CompactionPlan {
    const state = this.current;
    const selection = selectForCompaction(state.messages, this.params);
    if (selection.summarize.length === 0) {
      return {
        kind: 'final',
        result: {
          kind: 'nothing-to-compact',
          success: true,
          preservedMessageIds: selection.preserve.map((message) => message.id),
          compactedMessageIds: [],
          tokenCountBefore: state.tokenCount,
          tokenCountAfter: state.tokenCount,
        },
      };
    }
    const decision = this.hooks.preCompact({ sessionId: state.sessionId, turnCount: state.totalCompactions });
    if (!decision.allowed) {
      // `||` on purpose (§4.5 step 3): a zero remembered count falls back to the estimate.
      this.blockedAtTokenCount = this.lastEffectiveTokenCount || state.tokenCount;
      return {
        kind: 'final',
        result: {
          kind: 'blocked',
          success: false,
          blocked: true,
          reason: decision.reason,
          preservedMessageIds: state.messages.map((message) => message.id),
          compactedMessageIds: [],
          tokenCountBefore: state.tokenCount,
          tokenCountAfter: state.tokenCount,
        },
      };
    }
    const input: SummarizeInput = {
      sessionId: state.sessionId,
      previousSummary: state.summaries.at(-1)?.content,
      messages: selection.summarize,
    };
    return { kind: 'ready', selection, input, heuristic: summarizeMessages(input, nowMs, this.summaryMemo) };
  }

  private finishWithLlm(
    plan: CompactionPlan & { readonly kind: 'ready' },
    request: LlmSummaryRequest,
    outcome: LlmSummaryOutcome,
    nowMs: number,
  ): CompactionResult {
    const accepted = acceptLlmSummary(outcome);
    if (accepted.ok)
      return this.commit(plan, makeSummary(plan.input, accepted.content, nowMs), { kind: 'llm', request }, nowMs);
    return this.commit(plan, plan.heuristic, { kind: 'llm-failed', request, error: accepted.error }, nowMs);
  }

  private commit(
    plan: CompactionPlan & { readonly kind: 'ready' },
    summary: CompactionSummary,
    summarizer: SummarizerUsed,
    nowMs: number,
  ): CompactionResult {
    const before = this.current;
    const tokenCountAfter = summary.summaryTokenCount + plan.selection.preserveTokenCount;
    this.blockedAtTokenCount = undefined;
    // Newest only (§4.5 step 6); `||` keeps FreeCode's "0 means unset".
    this.compactedAtTokenCount =
      this.params.version === 'newest' ? this.lastEffectiveTokenCount || undefined : undefined;
    this.current = {
      ...before,
      messages: plan.selection.preserve,
      summaries: [...before.summaries, summary],
      tokenCount: tokenCountAfter,
      totalCompactions: before.totalCompactions + 1,
      lastCompactionAt: nowMs,
    };
    this.forgetDroppedIds();
    this.save();
    // The preserved messages are the selection's array: copied before the next append, in case a caller kept it.
    this.shared = true;
    this.hooks.postCompact({ sessionId: this.current.sessionId, turnCount: this.current.totalCompactions });
    return {
      kind: 'compacted',
      success: true,
      summary,
      summarizer,
      preservedMessageIds: plan.selection.preserve.map((message) => message.id),
      compactedMessageIds: plan.selection.summarize.map((message) => message.id),
      tokenCountBefore: before.tokenCount,
      tokenCountAfter,
    };
  }

  /** Saves the whole state (§4.3); a store other than the null one keeps it, so it is handed out. */
  private save(): void {
    this.shared = this.store !== NULL_MEMORY_STORE;
    this.store.save(this.current);
  }

  private normalizeContent(role: MemoryRole, content: string): string {
    switch (this.params.version) {
      case 'newest':
        return content;
      case 'aug': {
        const maxChars = this.params.maxToolOutputChars;
        if (role !== 'assistant' || !content.startsWith('Tool ') || content.length <= maxChars) return content;
        return `${content.slice(0, maxChars)}${AUG_TRUNCATION_MARKER}`;
      }
      default: {
        const unreachable: never = this.params.version;
        return unreachable;
      }
    }
  }

  /**
   * FreeCode's ids are `msg-<ms>-<random>`; without randomness the suffix is a base-36 counter
   * of this instance, skipped forward past ids already in the transcript (a reloaded state), so
   * ids stay unique and deterministic.
   */
  private newMessageId(timestampMs: number): string {
    for (;;) {
      const id = `msg-${timestampMs}-${this.idSequence.toString(36)}`;
      this.idSequence += 1;
      // Without foreign ids (a replay's fresh service) nothing to meet: no lookup, which would
      // flatten and hash every id made.
      if (this.foreignIds.size === 0 || !this.foreignIds.has(id)) return id;
    }
  }

  /** After a compaction: the foreign ids no longer in the transcript may be made again. */
  private forgetDroppedIds(): void {
    if (this.foreignIds.size === 0) return;
    const present = new Set(this.current.messages.map((message) => message.id));
    for (const id of this.foreignIds) if (!present.has(id)) this.foreignIds.delete(id);
  }
}
