/**
 * The row emitter of the replay (replay.md §8): every provider request becomes one row, priced
 * through the session's prompt cache. It owns the rows, the cache, and the two flags a row
 * carries from what happened before it (a compaction, rejected sends); the walk decides when.
 */
import type { LlmSummaryRequest } from '../engine/index.js';
import type { Request, Session } from '../session/model.js';
import type { CacheTtl } from '../provider/cache-rules.js';
import type { CacheOutcome, CacheState } from './cache-model.js';
import { applyCacheRequest, createCacheState } from './cache-model.js';
import type { TokenCalibration } from './calibrate.js';
import { tokensForChars } from './calibrate.js';
import type { RenderedPrompt } from './provider-view.js';
import type { ModelFacts, PricedPrompt, ReplayInput, ReplayResult, ReplayRow } from './replay-types.js';

/** Where the walk is when a row not replaying a log request (a rejected send, a summarizer call) is made. */
export type RowContext = {
  /** The log request about to be sent: what the row belongs to. */
  readonly requestIndex: number;
  readonly model: string;
  readonly timestampMs: number | null;
};

export class RowEmitter {
  private readonly session: Session;
  private readonly calibration: TokenCalibration;
  private readonly ttl: CacheTtl;
  private readonly warmStaticBlock: boolean;
  private readonly keepPrompts: boolean;
  private readonly cache: CacheState = createCacheState();
  private readonly rows: ReplayRow[] = [];
  private readonly pricedPrompts: PricedPrompt[] = [];
  private compactionBefore = false;
  private retriesBeforeNextRow = 0;
  private summarizeRequests = 0;

  constructor(input: ReplayInput) {
    this.session = input.session;
    this.calibration = input.calibration;
    this.ttl = input.scenario.params.ttl;
    this.warmStaticBlock = input.warmStaticBlock === true;
    this.keepPrompts = input.keepPrompts === true;
  }

  /** Index of the next row. */
  get rowCount(): number {
    return this.rows.length;
  }

  /** The next row sent (rejected or priced) is the first after a compaction. */
  markCompaction(): void {
    this.compactionBefore = true;
  }

  /**
   * A side request (a subagent's, a memory job's, a cache warm-up) does not carry the session's
   * context, so no policy changes it: every scenario bills it as measured (first-order assumption).
   */
  side(request: Request, nowMs: number | null): void {
    const usage = request.usage;
    if (usage === null) return;
    const write1h = usage.cacheWrite1hTokens ?? 0;
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: request.index,
      requestIndex: request.index,
      kind: 'request',
      model: request.model,
      timestampMs: request.timestampMs ?? nowMs,
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

  /** A send the provider refused (prompt above the window): a row that bills nothing. */
  rejected(prompt: RenderedPrompt, at: RowContext): void {
    this.retriesBeforeNextRow += 1;
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: null,
      requestIndex: at.requestIndex,
      kind: 'rejected_overflow',
      model: at.model,
      timestampMs: at.timestampMs,
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

  /**
   * A modelled summarizer call (engine.md §3.3): it carries no cache markers and shares no prefix
   * with the session, so it is uncached; its output is the summary's size, capped by the request.
   */
  summarize(request: LlmSummaryRequest, summaryTokens: number, at: RowContext): void {
    const promptTokens = tokensForChars(request.system.length + request.prompt.length, this.calibration);
    const outputTokens = Math.min(summaryTokens, request.maxTokens);
    this.summarizeRequests += 1;
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: null,
      requestIndex: at.requestIndex,
      kind: 'summarize',
      model: at.model,
      timestampMs: at.timestampMs,
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

  /** A log request sent with `prompt`, priced through the cache; returns the prompt's token count. */
  priced(request: Request, prompt: RenderedPrompt, facts: ModelFacts, nowMs: number | null): number {
    const priced: PricedPrompt = {
      rowIndex: this.rows.length,
      segments: prompt.segments,
      atMs: nowMs ?? 0,
      model: request.model,
      rules: facts.rules,
    };
    if (this.keepPrompts) this.pricedPrompts.push(priced);
    const outcome = priceThroughCache(this.cache, priced, this.ttl, this.warmStaticBlock);
    const outputTokens = request.usage?.outputTokens ?? this.estimatedOutputTokens(request);
    this.rows.push({
      rowIndex: this.rows.length,
      sourceRequestIndex: request.index,
      requestIndex: request.index,
      kind: 'request',
      model: request.model,
      timestampMs: nowMs,
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
    return outcome.promptTokens;
  }

  /** The rows so far, with the walk's counters. */
  result(counts: { readonly overflows: number; readonly failedTurns: number }, compactions: ReplayResult['compactions']): ReplayResult {
    return {
      rows: this.rows,
      compactions,
      overflows: counts.overflows,
      failedTurns: counts.failedTurns,
      summarizeRequests: this.summarizeRequests,
      ...(this.keepPrompts ? { pricedPrompts: this.pricedPrompts } : {}),
    };
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
}

/**
 * One priced prompt through the cache. A session that starts warm finds its static block already
 * cached at its first request: the environment, not the policy (another session left it there).
 */
function priceThroughCache(cache: CacheState, priced: PricedPrompt, ttl: CacheTtl, warmStaticBlock: boolean): CacheOutcome {
  if (warmStaticBlock && cache.model === null) {
    applyCacheRequest(cache, {
      prompt: priced.segments.slice(0, 1),
      atMs: priced.atMs,
      model: priced.model,
      rules: priced.rules,
      ttl,
    });
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
