/**
 * The row emitter of the replay (replay.md §8): every provider request becomes one row, priced
 * through the session's prompt cache. It owns the rows, the cache, and the two flags a row
 * carries from what happened before it (a compaction, rejected sends); the walk decides when.
 */
import type { Request, Session } from '../session/model.js';
import { billedWrite5mTokens } from '../session/cache-class-tokens.js';
import { cacheRules, type CacheRules, type CacheTtl } from '../provider/cache-rules.js';
import type { CacheOutcome, CacheState, Segment } from './cache-model.js';
import { applyCacheRequest, createCacheState } from './cache-model.js';
import type { TokenCalibration } from './calibrate.js';
import { calibrationsByModel, tokensForChars } from './calibrate.js';
import type { PromptRenderer, RenderedPrompt, ReplayPrompt } from './provider-view.js';
import { staticBlockIdOf } from './provider-view.js';
import type { ReplayMemo } from './replay-memo.js';
import type {
  LoggedTtl,
  ModelFacts,
  PricedPrompt,
  ReplayCompaction,
  ReplayCompactionTrigger,
  ReplayInput,
  ReplayResult,
  ReplayRow,
} from './replay-types.js';
import { replayResult } from './replay-types.js';
import { mapPacked } from '../session/packed-array.js';
import type { Scenario } from './scenario.js';

/** Where the walk is when a row not replaying a log request (a rejected send, a summarizer call) is made. */
export type RowContext = {
  /** The log request about to be sent: what the row belongs to. */
  readonly requestIndex: number;
  readonly model: string;
  readonly timestampMs: number | null;
};

/** A modelled summarizer call (engine.md §3.3) as its row needs it: the characters of its prompt and its output cap. */
export type SummarizerCall = { readonly promptChars: number; readonly maxTokens: number };

/** A compaction attempt as the walk saw it, unsized: the sink sizes its prompts (replay.md §8). */
export type CompactionAttempt = {
  readonly requestIndex: number;
  readonly trigger: ReplayCompactionTrigger;
  readonly before: ReplayPrompt;
  /** The prompt after it (the same as before when it did not compact). */
  readonly after: ReplayPrompt;
  readonly estimateTokensBefore: number;
  readonly estimateTokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  /** Characters of the new summary block when it compacted; null when it did not. */
  readonly summaryChars: number | null;
  readonly hookBlocked: boolean;
};

/**
 * Where the walk sends what it does, in order: `RowEmitter` prices each send at once;
 * `TraceRecorder` (recorded-trace.ts) keeps them to price later under each calibration.
 */
export interface ReplaySink {
  markCompaction(): void;
  side(request: Request, nowMs: number | null): void;
  rejected(prompt: ReplayPrompt, at: RowContext): void;
  summarize(call: SummarizerCall, summaryChars: number, at: RowContext): void;
  /** Returns the prompt's token count when it is sized now, else null. */
  priced(request: Request, prompt: ReplayPrompt, facts: ModelFacts, nowMs: number | null): number | null;
  compaction(attempt: CompactionAttempt): void;
}

export class RowEmitter implements ReplaySink {
  private readonly session: Session;
  private readonly calibration: TokenCalibration;
  /** The calibration with a model's own static block (`calibrationsByModel`), as `CompactionDriver`'s. */
  private readonly calibrationFor: (model: string) => TokenCalibration;
  private readonly ttl: TtlChoice;
  /** The last TTL the log showed: a request that wrote nothing keeps its session's. */
  private lastLoggedTtl: LoggedTtl | null = null;
  private readonly warmStaticTokens: number;
  private readonly keepPrompts: boolean;
  private readonly transientMissRate: number | undefined;
  private readonly automaticTtlMs: number | undefined;
  /** `sessionRules`' last argument and result. */
  private lastRules: CacheRules | null = null;
  private lastSessionRules: CacheRules | null = null;
  private readonly cache: CacheState = createCacheState();
  private readonly rows: ReplayRow[] = [];
  private readonly compactions: ReplayCompaction[] = [];
  private readonly pricedPrompts: PricedPrompt[] = [];
  private compactionBefore = false;
  private retriesBeforeNextRow = 0;
  private summarizeRequests = 0;

  /**
   * `memo` and `reloadIds` size prompts that come unsized (a recorded trace's): with `memo`'s
   * renderer of the calibration, as the walk would have (`CompactionDriver.render`).
   */
  constructor(
    input: ReplayInput,
    private readonly memo: ReplayMemo | null = null,
    private readonly reloadIds = true,
  ) {
    this.session = input.session;
    this.calibration = input.calibration;
    this.calibrationFor = calibrationsByModel(input.calibration);
    this.ttl = ttlChoiceOf(input.scenario);
    this.warmStaticTokens = input.warmStaticTokens ?? 0;
    this.keepPrompts = input.keepPrompts === true;
    this.transientMissRate = input.transientMissRate;
    this.automaticTtlMs = input.automaticTtlMs;
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
      cacheWrite5mTokens: billedWrite5mTokens(usage),
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
  rejected(replayPrompt: ReplayPrompt, at: RowContext): void {
    const prompt = this.sizeOf(replayPrompt);
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
  summarize(request: SummarizerCall, summaryChars: number, at: RowContext): void {
    const promptTokens = tokensForChars(request.promptChars, this.calibration);
    const outputTokens = Math.min(tokensForChars(summaryChars, this.calibration), request.maxTokens);
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
  priced(request: Request, replayPrompt: ReplayPrompt, facts: ModelFacts, nowMs: number | null): number {
    const prompt = this.sizeOf(replayPrompt);
    this.lastLoggedTtl = loggedTtl(request) ?? this.lastLoggedTtl;
    const segments = withSharedStaticPart(prompt.segments, this.warmStaticTokens);
    const priced: PricedPrompt = {
      rowIndex: this.rows.length,
      // A kept prompt keeps its own copy (a traced pricing's segment list is reused by its next send).
      segments: this.keepPrompts && segments === prompt.segments ? [...segments] : segments,
      atMs: nowMs ?? 0,
      model: request.model,
      rules: this.sessionRules(facts.rules),
      loggedTtl: this.lastLoggedTtl,
    };
    if (this.keepPrompts) this.pricedPrompts.push(priced);
    const outcome = priceThroughCache(this.cache, priced, this.ttl, this.warmStaticTokens > 0);
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

  /** A compaction attempt, its prompts sized; it happened before the next row. */
  compaction(attempt: CompactionAttempt): void {
    const compacted = attempt.summaryChars !== null;
    const before = this.sizeOf(attempt.before).promptTokens;
    this.compactions.push({
      rowIndex: this.rows.length,
      requestIndex: attempt.requestIndex,
      trigger: attempt.trigger,
      promptTokensBefore: before,
      promptTokensAfter: compacted ? this.sizeOf(attempt.after).promptTokens : before,
      estimateTokensBefore: attempt.estimateTokensBefore,
      estimateTokensAfter: attempt.estimateTokensAfter,
      messagesBefore: attempt.messagesBefore,
      messagesAfter: attempt.messagesAfter,
      summaryTokens: attempt.summaryChars === null ? 0 : tokensForChars(attempt.summaryChars, this.calibration),
      hookBlocked: attempt.hookBlocked,
      compacted,
    });
  }

  /** The rows so far, with the walk's counters. */
  result(counts: { readonly overflows: number; readonly failedTurns: number }): ReplayResult {
    return replayResult(
      this.rows,
      {
        compactions: this.compactions,
        overflows: counts.overflows,
        failedTurns: counts.failedTurns,
        summarizeRequests: this.summarizeRequests,
      },
      this.keepPrompts ? this.pricedPrompts : undefined,
    );
  }

  /** A prompt's sizes: as the walk rendered it, else rendered here as the walk would have. */
  sizeOf(prompt: ReplayPrompt): RenderedPrompt {
    if (prompt.rendered !== null) return prompt.rendered;
    return this.renderer(prompt.model).render(staticBlockIdOf(prompt.model), prompt.summary, prompt.visible);
  }

  /** The renderer of `model`'s prompts (the memo's, for its calibration), as the walk's (`CompactionDriver.render`). */
  renderer(model: string): PromptRenderer {
    if (this.memo === null) throw new Error('invariant: an unsized prompt needs the memo to size it');
    return this.memo.renderer(this.calibrationFor(model), this.reloadIds);
  }

  /** The provider's rules with what this session's log measured of its automatic cache. */
  private sessionRules(rules: CacheRules): CacheRules {
    // One object per provider rules (a session's requests mostly share one model), not one per request.
    if (rules !== this.lastRules) {
      this.lastRules = rules;
      this.lastSessionRules = withAutomaticCacheFacts(rules, this.transientMissRate, this.automaticTtlMs);
    }
    return this.lastSessionRules ?? rules;
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
 * The prompt as the cache sees it when only part of the static block was cached at the start
 * (another session's system prompt, without this session's own context): the static block as
 * that shared part and the rest, so a warm start reads exactly the shared part.
 */
function withSharedStaticPart(segments: readonly Segment[], warmStaticTokens: number): readonly Segment[] {
  // Not `[first, ...rest] = segments`: that copies the whole prompt on every call, split or not.
  const first = segments[0];
  if (first === undefined || warmStaticTokens <= 0 || warmStaticTokens >= first.tokens) return segments;
  const split: Segment[] = [
    { id: `${first.id}#shared`, tokens: warmStaticTokens },
    { id: first.id, tokens: first.tokens - warmStaticTokens },
  ];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i];
    if (segment !== undefined) split.push(segment);
  }
  return split;
}

/**
 * One priced prompt through the cache. A session that starts warm finds its static block already
 * cached at its first request: the environment, not the policy (another session left it there);
 * on a provider that shares prefixes across sessions it stays cached (`sharedAcrossSessions`).
 */
function priceThroughCache(
  cache: CacheState,
  priced: PricedPrompt,
  choice: TtlChoice,
  warmStaticBlock: boolean,
): CacheOutcome {
  const logged = choice.fromLog ? priced.loggedTtl : null;
  const ttl: CacheTtl = logged?.ttl ?? choice.ttl;
  // Where the provider shares a prefix across sessions, the others keep the static block alive all along.
  if (warmStaticBlock && (cache.model === null || priced.rules.sharedAcrossSessions)) {
    applyCacheRequest(cache, {
      prompt: priced.segments.slice(0, 1),
      atMs: priced.atMs,
      model: priced.model,
      rules: priced.rules,
      ttl,
    });
  }
  const outcome = applyCacheRequest(cache, {
    prompt: priced.segments,
    atMs: priced.atMs,
    model: priced.model,
    rules: priced.rules,
    ttl,
  });
  if (logged === null || logged.oneHourShare <= 0 || logged.oneHourShare >= 1) return outcome;
  // A 5m/1h split: entries live for the longer TTL, the writes are billed in the log's proportion.
  const writes = outcome.cacheWrite5mTokens + outcome.cacheWrite1hTokens;
  const write1h = Math.round(writes * logged.oneHourShare);
  // Written out in the cache model's key order: a spread copy would be of another hidden class.
  return {
    state: outcome.state,
    promptTokens: outcome.promptTokens,
    cacheReadTokens: outcome.cacheReadTokens,
    cacheWrite5mTokens: writes - write1h,
    cacheWrite1hTokens: write1h,
    uncachedInputTokens: outcome.uncachedInputTokens,
    matchedPrefixSegments: outcome.matchedPrefixSegments,
  };
}

/** How a scenario chooses each request's TTL: the log's where it says (`fromLog`), else `ttl`. */
export type TtlChoice = { readonly ttl: CacheTtl; readonly fromLog: boolean };

/** The TTL choice of a scenario's replay. */
export function ttlChoiceOf(scenario: Scenario): TtlChoice {
  return { ttl: scenario.params.ttl, fromLog: scenario.params.ttlFromLog };
}

/** `rules` with what a session's log measured of its automatic cache (`ReplayInput.transientMissRate`, `automaticTtlMs`). */
function withAutomaticCacheFacts(
  rules: CacheRules,
  transientMissRate: number | undefined,
  automaticTtlMs: number | undefined,
): CacheRules {
  if (rules.kind !== 'automatic-prefix') return rules;
  if (transientMissRate === undefined && automaticTtlMs === undefined) return rules;
  // Made by `cacheRules`, as every rules object: one hidden class wherever the cache model meets them.
  return cacheRules({
    ...rules,
    transientMissRate: transientMissRate ?? rules.transientMissRate,
    ttlMs: automaticTtlMs ?? rules.ttlMs,
  });
}

/** The TTL a request's measured writes show: 1h when any was written at 1h; null when the log has no split or no write. */
export function loggedTtl(request: Request): LoggedTtl | null {
  const usage = request.usage;
  if (usage === null || usage.cacheWrite5mTokens === null || usage.cacheWrite1hTokens === null) return null;
  const writes = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  if (writes === 0) return null;
  const oneHourShare = usage.cacheWrite1hTokens / writes;
  return { ttl: oneHourShare > 0 ? '1h' : '5m', oneHourShare };
}

/**
 * The same replay priced with other facts of the session's automatic cache (its transient miss
 * share, its entries' lifetime), exactly as a fresh replay with those facts in its input: the
 * walk never reads the cache, so only the cache classes of the priced rows change. `result` must
 * be made with `keepPrompts` and without `automaticTtlMs` (its prompts then carry the provider's
 * lifetime); `transientMissRate` is always given, so the one the result was made with is replaced.
 * The result carries no kept prompts.
 */
export function repriceAutomaticCache(
  result: ReplayResult,
  facts: { readonly transientMissRate: number; readonly automaticTtlMs: number | undefined },
  ttl: TtlChoice,
  warmStaticTokens: number,
): ReplayResult {
  if (result.pricedPrompts === undefined)
    throw new Error('invariant: repriceAutomaticCache needs a replay made with keepPrompts');
  // One rules object per provider rules, as `RowEmitter.sessionRules` makes them, not one per prompt.
  let from: CacheRules | null = null;
  let to: CacheRules | null = null;
  const rulesOf = (rules: CacheRules): CacheRules => {
    if (rules !== from) {
      from = rules;
      to = withAutomaticCacheFacts(rules, facts.transientMissRate, facts.automaticTtlMs);
    }
    return to ?? rules;
  };
  const repriced = repriceReplay(
    replayResult(
      result.rows,
      result,
      // Written out as `priced` makes them (a spread copy would be of another hidden class).
      mapPacked(result.pricedPrompts, (priced) => ({
        rowIndex: priced.rowIndex,
        segments: priced.segments,
        atMs: priced.atMs,
        model: priced.model,
        rules: rulesOf(priced.rules),
        loggedTtl: priced.loggedTtl,
      })),
    ),
    ttl,
    warmStaticTokens,
  );
  return replayResult(repriced.rows, repriced, undefined);
}

/**
 * The same replay priced under another cache TTL. The engine's decisions never read the cache
 * (the measured count is the prompt size, whatever was cached), so only the cache classes of
 * the priced rows change; a sweep over TTLs replays once. Needs a result made with `keepPrompts`.
 */
export function repriceReplay(result: ReplayResult, ttl: TtlChoice, warmStaticTokens: number): ReplayResult {
  if (result.pricedPrompts === undefined)
    throw new Error('invariant: repriceReplay needs a replay made with keepPrompts');
  const cache = createCacheState();
  const rows = [...result.rows];
  for (const priced of result.pricedPrompts) {
    const row = rows[priced.rowIndex];
    if (row === undefined) throw new Error('invariant: a priced prompt names a row of its replay');
    const outcome = priceThroughCache(cache, priced, ttl, warmStaticTokens > 0);
    // Written out, not `{ ...row, … }`: a spread copy gets another hidden class than the rows the
    // walk made, and the rows' readers were thrown away when both kinds reached them.
    rows[priced.rowIndex] = {
      rowIndex: row.rowIndex,
      sourceRequestIndex: row.sourceRequestIndex,
      requestIndex: row.requestIndex,
      kind: row.kind,
      model: row.model,
      timestampMs: row.timestampMs,
      promptTokens: row.promptTokens,
      cacheReadTokens: outcome.cacheReadTokens,
      cacheWrite5mTokens: outcome.cacheWrite5mTokens,
      cacheWrite1hTokens: outcome.cacheWrite1hTokens,
      uncachedInputTokens: outcome.uncachedInputTokens,
      outputTokens: row.outputTokens,
      contextTokensAfter: row.contextTokensAfter,
      compactionBefore: row.compactionBefore,
      overflowRetries: row.overflowRetries,
      visibleChars: row.visibleChars,
      visibleUnits: row.visibleUnits,
      fixedTokens: row.fixedTokens,
    };
  }
  return replayResult(rows, result, result.pricedPrompts);
}
