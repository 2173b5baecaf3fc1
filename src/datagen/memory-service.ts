/**
 * FreeCode's `MemoryService` (engine.md §4, newest) as far as the generator plays it: the
 * estimated transcript, the compaction check with both 5,000-token holds, the PreCompact hook
 * and the heuristic summary. A new instance's holds are per run (§4.4: FreeCode builds a new
 * service for every user message), so the simulator calls `startRun()` at each user message.
 */
import type { Rng } from './rng.js';
import { memoryMessageId, summaryId } from './ids.js';
import { selectForCompaction, type MemoryMessage, type SelectionConfig } from './selector.js';
import { summarizeMessages } from './summarizer.js';
import { estimateTokenCount } from './tokens.js';

export interface CompactionSummary {
  readonly id: string;
  readonly createdAt: number;
  readonly originalMessageCount: number;
  readonly originalTokenCount: number;
  readonly summaryTokenCount: number;
  readonly content: string;
}

export type CompactOutcome =
  | { readonly kind: 'nothing'; readonly tokensBefore: number }
  | { readonly kind: 'blocked'; readonly reason: string; readonly tokensBefore: number }
  | {
      readonly kind: 'compacted';
      readonly summary: CompactionSummary;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly summarizedCount: number;
    };

/** §4.4 `BLOCKED_RETRY_GROWTH_TOKENS`, also the post-compaction hold. */
export const HOLD_GROWTH_TOKENS = 5_000;

export class MemoryService {
  readonly sessionId: string;
  messages: MemoryMessage[] = [];
  summaries: CompactionSummary[] = [];
  tokenCount = 0;
  totalCompactions = 0;
  lastCompactionAt: number | undefined;
  private blockedAtTokenCount: number | undefined;
  private compactedAtTokenCount: number | undefined;
  private lastEffectiveTokenCount = 0;
  private readonly rng: Rng;
  private readonly config: SelectionConfig;

  constructor(sessionId: string, rng: Rng, config: SelectionConfig) {
    this.sessionId = sessionId;
    this.rng = rng;
    this.config = config;
  }

  /** A new user message's run: the holds die with the old per-message instance (§4.4, §13.8). */
  startRun(): void {
    this.blockedAtTokenCount = undefined;
    this.compactedAtTokenCount = undefined;
    this.lastEffectiveTokenCount = 0;
  }

  /** §4.3 `addMessage`. */
  addMessage(role: MemoryMessage['role'], content: string, timestampMs: number): void {
    const tokenCount = estimateTokenCount(content);
    this.messages.push({
      id: memoryMessageId(timestampMs, this.rng),
      role,
      content,
      timestamp: timestampMs,
      tokenCount,
    });
    this.tokenCount += tokenCount;
  }

  /** §4.4: the measured count when positive, else the estimate; then the two holds; then the trigger. */
  shouldCompact(measuredTokens: number, triggerTokens: number): boolean {
    const effective = measuredTokens > 0 ? measuredTokens : this.tokenCount;
    this.lastEffectiveTokenCount = effective;
    if (this.compactedAtTokenCount !== undefined) {
      if (effective < this.compactedAtTokenCount) this.compactedAtTokenCount = undefined;
      else if (effective < this.compactedAtTokenCount + HOLD_GROWTH_TOKENS) return false;
    }
    if (this.blockedAtTokenCount !== undefined && effective < this.blockedAtTokenCount + HOLD_GROWTH_TOKENS)
      return false;
    return effective >= triggerTokens;
  }

  /** §4.5: select, run the PreCompact hook, summarize (heuristic, chained), replace the transcript. */
  compact(preCompact: () => { allowed: true } | { allowed: false; reason: string }, nowMs: number): CompactOutcome {
    const selected = selectForCompaction(this.messages, this.config);
    const tokensBefore = this.tokenCount;
    if (selected.summarize.length === 0) return { kind: 'nothing', tokensBefore };
    const hook = preCompact();
    if (!hook.allowed) {
      this.blockedAtTokenCount = this.lastEffectiveTokenCount || this.tokenCount;
      return { kind: 'blocked', reason: hook.reason, tokensBefore };
    }
    const previous = this.summaries[this.summaries.length - 1];
    const content = summarizeMessages(selected.summarize, previous?.content);
    const summary: CompactionSummary = {
      id: summaryId(this.sessionId, nowMs),
      createdAt: nowMs,
      originalMessageCount: selected.summarize.length,
      originalTokenCount: selected.summarizeTokenCount,
      summaryTokenCount: estimateTokenCount(content),
      content,
    };
    const tokensAfter = summary.summaryTokenCount + selected.preserveTokenCount;
    this.blockedAtTokenCount = undefined;
    this.compactedAtTokenCount = this.lastEffectiveTokenCount || undefined;
    this.messages = selected.preserve;
    this.summaries = [...this.summaries, summary];
    this.tokenCount = tokensAfter;
    this.totalCompactions += 1;
    this.lastCompactionAt = nowMs + 3;
    return { kind: 'compacted', summary, tokensBefore, tokensAfter, summarizedCount: selected.summarize.length };
  }

  /** `memory.json` exactly as `FileMemoryStorage.save` writes it (§4.1, §4.2). */
  toJson(): string {
    const state: Record<string, unknown> = {
      sessionId: this.sessionId,
      messages: this.messages.map((m) => ({
        id: m.id,
        role: m.role,
        content: m.content,
        timestamp: m.timestamp,
        tokenCount: m.tokenCount,
      })),
      summaries: this.summaries.map((s) => ({
        id: s.id,
        createdAt: s.createdAt,
        originalMessageCount: s.originalMessageCount,
        originalTokenCount: s.originalTokenCount,
        summaryTokenCount: s.summaryTokenCount,
        content: s.content,
      })),
      tokenCount: this.tokenCount,
      totalCompactions: this.totalCompactions,
    };
    if (this.lastCompactionAt !== undefined) state['lastCompactionAt'] = this.lastCompactionAt;
    return JSON.stringify(state, null, 2);
  }
}
