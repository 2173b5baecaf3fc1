/**
 * The compaction driver of the replay: the session's context as FreeCode holds it (the stored
 * provider history, the memory transcript, the summary block, the pruning state) and every
 * compaction of it, whether the engine decides it (threshold, overflow) or the log shows it
 * (`recorded`). Both kinds end in the same bookkeeping (`settle`), written once.
 */
import type { ApplyCompactionResult } from '../engine/apply-compaction.js';
import type { CompactionHooks } from '../engine/compaction-hooks.js';
import type { HistoryMessage } from '../engine/history-message.js';
import type { LlmSummarizer, LlmSummaryRequest } from '../engine/llm-summary.js';
import type { MicrocompactDecision } from '../engine/microcompact.js';
import type { EngineParams } from '../engine/params.js';
import type { PruneMemo } from '../engine/pruning-policy.js';
import { NO_COMPACTION_HOOKS } from '../engine/compaction-hooks.js';
import { isToolResultPart } from '../engine/history-message.js';
import { keepLastNUserTurns } from '../engine/keep-last-turns.js';
import { LegacyHistoryView } from '../engine/legacy-view.js';
import { MemoryService } from '../engine/memory-service.js';
import { applyMicrocompact, timeBasedMicrocompact } from '../engine/microcompact.js';
import { pruneStateResetsEachUserMessage } from '../engine/params.js';
import { PruneState } from '../engine/prune-state.js';
import { applyPruningPolicy } from '../engine/pruning-policy.js';
import { runCompaction } from '../engine/run-compaction.js';
import { ArraySessionStore } from '../engine/session-store.js';
import type { Item } from '../session/model.js';
import { mapPacked } from '../session/packed-array.js';
import type { TokenCalibration } from './calibrate.js';
import { calibrationsByModel } from './calibrate.js';
import type { RenderedPrompt, ReplayMessage, ReplayPrompt, SummaryBlock } from './provider-view.js';
import { replayMessageWith, SUMMARY_BLOCK_PREFIX, staticBlockIdOf } from './provider-view.js';
import type { ReplayMemo } from './replay-memo.js';
import type { ReplayCompactionTrigger } from './replay-types.js';
import type { ReplaySink, RowContext } from './row-emitter.js';
import { toolResultEditor } from './policies/editors.js';
import type { ToolResultEditor } from './policies/tool-result-editing.js';
import type { Scenario } from './scenario.js';

type ModelledSummarizer = { readonly llm: LlmSummarizer | undefined; readonly request: () => LlmSummaryRequest | null };

export class CompactionDriver {
  readonly store = new ArraySessionStore<ReplayMessage>();
  readonly memory: MemoryService;
  private readonly prune = new PruneState();
  private microcompact: MicrocompactDecision = { kind: 'not-idle' };
  /** Each message as `microcompact` shows it (one memo per decision; history messages are immutable). */
  private microcompactShown = new WeakMap<HistoryMessage, HistoryMessage>();
  /** The sliding truncation (after the microcompact) worked out from one render to the next; null under other pruning. */
  private readonly legacyView: LegacyHistoryView<ReplayMessage> | null;
  /** What the pruning policy can reuse from one render to the next (results unchanged). */
  /** The calibration with a model's own static block (`calibrationsByModel`). */
  private readonly calibrationFor: (model: string) => TokenCalibration;
  private readonly pruneMemo: PruneMemo;
  private summary: SummaryBlock | null = null;
  private summaryCount = 0;
  /** Recorded compactions so far that restarted the log's chain (indexes `calibration.restoredTokens`). */
  private chainRestarts = 0;
  /** FreeCode's `lastMeasuredContextTokens` (engine.md §1.5): 0 after a compaction until the next response. */
  private lastMeasuredTokens = 0;
  /** The scenario's tool-result editing, after the pruning (policies/). */
  private readonly editor: ToolResultEditor;

  constructor(
    sessionId: string,
    private readonly params: EngineParams,
    private readonly scenario: Scenario,
    private readonly calibration: TokenCalibration,
    private readonly rows: ReplaySink,
    preCompactHookBlocks: boolean,
    private readonly memo: ReplayMemo,
    /** FreeCode's reload serialization (`ReplayInput.reloadBreaks`), already limited to the newest engine. */
    private readonly reloadBreaks = false,
    /**
     * Prompts are left unsized (`ReplayPrompt.rendered` null) for the sink to size later
     * (`recorded-trace.ts`): only where no decision reads a size (the `recorded` scenario without
     * tool-result editing); `calibration` is then never read.
     */
    private readonly unsized = false,
  ) {
    const hooks: CompactionHooks = preCompactHookBlocks
      ? {
          preCompact: () => ({ allowed: false, reason: 'PreCompact hook (as recorded)' }),
          postCompact: () => undefined,
        }
      : NO_COMPACTION_HOOKS;
    this.memory = new MemoryService(sessionId, {
      params,
      hooks,
      ...(memo.toolLines === undefined ? {} : { toolLines: memo.toolLines }),
      ...(memo.summaries === undefined ? {} : { summaryMemo: memo.summaries }),
      ...(memo.turns === undefined ? {} : { turns: memo.turns }),
    });
    this.editor = toolResultEditor(scenario.params.editing);
    this.pruneMemo = memo.prune;
    this.legacyView =
      params.pruning.kind === 'sliding-legacy'
        ? new LegacyHistoryView(params.pruning.keepRecentResponses, params.pruning.capChars, this.pruneMemo.sliding)
        : null;
    this.calibrationFor = calibrationsByModel(calibration);
  }

  /** The inclusive prompt of the last response was measured (engine.md §1.5). */
  measured(promptTokens: number): void {
    this.lastMeasuredTokens = promptTokens;
  }

  /** Whether the loop's `maybeCompact` fires after a response (engine.md §5.2 step 8). */
  wantsCompaction(triggerWindowTokens: number | undefined): boolean {
    return this.memory.checkCompaction(triggerWindowTokens, this.lastMeasuredTokens).kind === 'compact';
  }

  /** A new user message (engine.md §5.1): fresh holds, the Aug prune state reset, legacy microcompact. */
  startUserMessage(timestampMs: number | null, nowMs: number): void {
    if (this.reloadBreaks) this.reloadFinishedRun();
    this.memory.startUserMessage();
    this.editor.endTurn(this.store.getMessages());
    if (pruneStateResetsEachUserMessage(this.params.version)) this.prune.reset();
    if (this.params.legacyMicrocompact) {
      const history = this.store.getMessages();
      const last = history[history.length - 1];
      this.microcompact = timeBasedMicrocompact(history, last?.timestampMs ?? null, timestampMs ?? nowMs);
      this.microcompactShown = new WeakMap();
    }
  }

  /**
   * A new user message reloads the history from the store (engine.md §5.1, §5.6): the finished
   * run's tool-using responses, sent so far with the provider's ids in one message each, are now
   * sent with derived ids, one message per call. Their segments change once; reloaded ones stay.
   */
  private reloadFinishedRun(): void {
    const messages = this.store.getMessages();
    let changed = false;
    const next = mapPacked(messages, (message) => {
      if (message.role !== 'assistant' || message.reloaded === true || !message.parts.some(isToolResultPart))
        return message;
      changed = true;
      return replayMessageWith(message, message.parts, true);
    });
    if (changed) this.store.replaceMessages(next);
  }

  /** A tool result (item `itemIndex`) joins the newest assistant message that made the call. */
  attachToolResult(item: Item & { readonly kind: 'tool_result' }, itemIndex: number, text: string): void {
    const store = this.store;
    for (let i = store.length - 1; i >= 0; i--) {
      const message = store.at(i);
      if (message === undefined || message.role !== 'assistant') continue;
      const updated = this.memo.withToolResult(message, item, itemIndex, text);
      if (updated === null) continue;
      store.replaceAt(i, updated);
      return;
    }
  }

  /**
   * The provider-facing copy, pruned as the scenario prunes, rendered as segments. Not pure:
   * prefix-stable pruning records its decisions, so every render is a send or a measurement.
   */
  render(model: string): ReplayPrompt {
    // Peeked, not handed out: otherwise the next append copies the whole history (once per send).
    // The pruning policies return a list of their own; were it ever the store's, it is handed out.
    const history = this.store.peekMessages();
    const shown = this.shownHistory(history);
    if (shown === history) this.store.getMessages();
    const staticBlockId = staticBlockIdOf(model);
    const summary = this.summary;
    const renderer = () => {
      if (this.unsized) throw new Error('invariant: an unsized walk never sizes a prompt');
      return this.memo.renderer(this.calibrationFor(model));
    };
    const edited = this.editor.edit(
      shown,
      (history) => renderer().render(staticBlockId, summary, history).promptTokens,
    );
    return {
      model,
      summary,
      visible: edited,
      rendered: this.unsized ? null : renderer().render(staticBlockId, summary, edited),
    };
  }

  /**
   * The history as the scenario's pruning shows it (after the legacy microcompact where it applies):
   * the sliding truncation through `legacyView` (the same messages `applyPruningPolicy` gives,
   * without mapping the whole history on every render), the other policies through `applyPruningPolicy`.
   */
  private shownHistory(history: readonly ReplayMessage[]): readonly ReplayMessage[] {
    // Without the legacy microcompact its decision stays the initial `not-idle`: nothing cleared.
    if (this.legacyView !== null) return this.legacyView.show(history, this.microcompact, this.microcompactShown);
    let messages = history;
    if (this.params.legacyMicrocompact)
      messages = applyMicrocompact(messages, this.microcompact, this.microcompactShown);
    // No pruning shows the messages as they are: `applyPruningPolicy` would copy them and count
    // every tool result of the history for statistics no render reads, on every send (a walk of
    // every message's parts: quadratic in a long session). `render` hands the store's list out.
    if (this.params.pruning.kind === 'none') return messages;
    return applyPruningPolicy(
      messages,
      this.params.pruning,
      this.prune,
      this.params.toolResultBudgetChars,
      this.pruneMemo,
    ).messages;
  }

  /** `render` sized (engine scenarios, whose decisions read sizes). */
  renderSized(model: string): RenderedPrompt {
    const rendered = this.render(model).rendered;
    if (rendered === null) throw new Error('invariant: an unsized walk never sizes a prompt');
    return rendered;
  }

  /** A compaction the engine decides (`runCompaction`, engine.md §2.4); a hook may block it. */
  compact(trigger: 'threshold' | 'overflow', at: RowContext, nowMs: number): ApplyCompactionResult {
    if (this.unsized) throw new Error('invariant: an unsized walk never compacts by size');
    const before = this.render(at.model);
    const messagesBefore = this.store.length;
    const summarizer = this.modelledSummarizer(at.model);
    const outcome = runCompaction({
      memory: this.memory,
      store: this.store,
      compactOptions: { nowMs, llm: summarizer.llm },
      preserveRecentTurns: this.params.preserveRecentTurns,
      version: this.params.version,
      trigger: 'auto',
    });
    const result = outcome.result;
    let summaryChars: number | null = null;
    const llmRequest = summarizer.request();
    if (outcome.kind === 'compacted') {
      const content = result.compaction.kind === 'compacted' ? result.compaction.summary.content : '';
      const capChars =
        llmRequest === null
          ? Number.POSITIVE_INFINITY
          : Math.ceil(llmRequest.maxTokens / this.calibration.tokensPerChar);
      summaryChars = Math.min(content.length, capChars);
    }
    this.settle({
      trigger,
      before,
      messagesBefore,
      summaryChars,
      llmRequest,
      estimateTokensBefore: result.tokensBefore,
      estimateTokensAfter: result.tokensAfter,
      hookBlocked: result.compaction.kind === 'blocked',
      at,
    });
    return result;
  }

  /**
   * A compaction where the log shows one: the store trimmed as FreeCode trims it
   * (`keepLastNUserTurns`, engine.md §2.3) or, where the log's tree restarts at the summary
   * (Claude Code, formats.md §1.7), emptied; the summary of the recorded size when the log kept
   * it (`recordedSummaryChars`, from memory.json), else the engine's own summary; the memory
   * transcript follows the engine. It always happens: the log says it did.
   */
  compactAsRecorded(
    recordedSummaryChars: number | undefined,
    at: RowContext,
    nowMs: number,
    restartsChain = false,
  ): void {
    const before = this.render(at.model);
    const stored = this.store.getMessages();
    const summarizer = this.modelledSummarizer(at.model);
    const result = this.memory.compact({ nowMs, llm: summarizer.llm });
    // Where the log's tree restarts at the summary (`restartsChain`), nothing before it is kept.
    const kept = restartsChain ? [] : keepLastNUserTurns(stored, this.params.preserveRecentTurns, this.params.version);
    if (restartsChain) this.chainRestarts += 1;
    if (kept.length < stored.length) this.store.replaceMessages(kept);
    const engineChars =
      result.kind === 'compacted'
        ? result.summary.content.length
        : this.summary === null
          ? 0
          : this.summary.chars - SUMMARY_BLOCK_PREFIX.length;
    this.settle({
      trigger: 'recorded',
      before,
      messagesBefore: stored.length,
      summaryChars: recordedSummaryChars ?? engineChars,
      restart: restartsChain ? this.chainRestarts : undefined,
      llmRequest: summarizer.request(),
      estimateTokensBefore: result.tokenCountBefore,
      estimateTokensAfter: result.tokenCountAfter,
      hookBlocked: false,
      at,
    });
  }

  /**
   * What every compaction attempt ends with. When it compacted (`summaryChars` not null): the
   * new summary block, the measured count reset (engine.md §1.5), the next row marked, and the
   * modelled summarizer call as a row. Then the attempt is recorded, blocked or not.
   */
  private settle(attempt: {
    readonly trigger: ReplayCompactionTrigger;
    readonly before: ReplayPrompt;
    readonly messagesBefore: number;
    readonly summaryChars: number | null;
    /** A recorded compaction: whether (and as which) it restarted the log's chain. */
    readonly restart?: number | undefined;
    readonly llmRequest: LlmSummaryRequest | null;
    readonly estimateTokensBefore: number;
    readonly estimateTokensAfter: number;
    readonly hookBlocked: boolean;
    readonly at: RowContext;
  }): void {
    let summaryChars: number | null = null;
    if (attempt.summaryChars !== null) {
      this.summaryCount += 1;
      this.summary = {
        id: `summary#${this.summaryCount}`,
        chars: SUMMARY_BLOCK_PREFIX.length + attempt.summaryChars,
        ...(attempt.restart === undefined ? {} : { restart: attempt.restart }),
      };
      summaryChars = this.summary.chars;
      this.lastMeasuredTokens = 0;
      this.rows.markCompaction();
      if (attempt.llmRequest !== null)
        this.rows.summarize(
          {
            promptChars: attempt.llmRequest.system.length + attempt.llmRequest.promptChars,
            maxTokens: attempt.llmRequest.maxTokens,
          },
          summaryChars,
          attempt.at,
        );
    }
    this.rows.compaction({
      requestIndex: attempt.at.requestIndex,
      trigger: attempt.trigger,
      before: attempt.before,
      after: this.render(attempt.at.model),
      estimateTokensBefore: attempt.estimateTokensBefore,
      estimateTokensAfter: attempt.estimateTokensAfter,
      messagesBefore: attempt.messagesBefore,
      messagesAfter: this.store.length,
      summaryChars,
      hookBlocked: attempt.hookBlocked,
    });
  }

  /**
   * The LLM summarizer as the replay models it: the call is not made. The engine builds its
   * request (priced as a row of its own) and, told "no", keeps the heuristic summary, whose size
   * stands for the LLM's, capped at its 1,024 output tokens (engine.md §3.3, §3.4).
   */
  private modelledSummarizer(model: string): ModelledSummarizer {
    if (this.scenario.params.summarizer !== 'llm') return { llm: undefined, request: () => null };
    let captured: LlmSummaryRequest | null = null;
    return {
      llm: {
        model,
        summarize: (request: LlmSummaryRequest) => {
          captured = request;
          return { ok: false, error: 'modelled by the replay' };
        },
      },
      request: () => captured,
    };
  }
}
