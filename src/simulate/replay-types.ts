/**
 * The replay's inputs and outputs (replay.md §8): what one session under one scenario takes and
 * gives. The walk that produces them is `replay.ts`.
 */
import type { EngineVersion, PruningPolicy } from '../engine/index.js';
import type { Session } from '../session/model.js';
import type { CacheRules } from '../provider/cache-rules.js';
import type { Segment } from './cache-model.js';
import type { TokenCalibration } from './calibrate.js';
import type { ReplayMemo } from './replay-memo.js';
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
   * Tokens of the static block already cached when the session began (earlier sessions of the
   * same agent share it): what the log's first request read of it. Optional; default 0 (cold).
   */
  readonly warmStaticTokens?: number;
  /**
   * The share of reads beyond the static block an automatic cache misses in this session (see
   * `CacheRules.transientMissRate`), when the log measured it; absent = the provider's rate.
   */
  readonly transientMissRate?: number;
  /** The lifetime of an automatic cache's entries in this session, when its log fits one better (`CacheRules.documentedTtlMs`). */
  readonly automaticTtlMs?: number;
  /** Keep each priced prompt's segments in the result, so `repriceReplay` can price another TTL. */
  readonly keepPrompts?: boolean;
  /**
   * Work shared by the replays of this session (replay-memo.ts): the same rows with or without
   * it. Optional; default a fresh one. Only ever pass a memo made for this session.
   */
  readonly memo?: ReplayMemo;
  /**
   * FreeCode's reload at each new user message (engine.md §5.6, §13.9): the previous run's
   * tool-using responses come back from the store serialized differently (derived tool ids, one
   * message per call), so the cached prefix breaks there. Applied where the engine is the newest
   * generation; set when the log's measured reads show it (`simulate-session.ts`). Default false.
   */
  readonly reloadBreaks?: boolean;
};

/** A prompt the cache model priced, kept so the same replay can be priced under another TTL. */
export type PricedPrompt = {
  readonly rowIndex: number;
  readonly segments: readonly Segment[];
  readonly atMs: number;
  readonly model: string;
  readonly rules: CacheRules;
  /** The cache-write TTL the log shows for this request (null: it does not say), and the 1h share of its writes. */
  readonly loggedTtl: LoggedTtl | null;
};

/** What a request's measured writes say of their TTL: the lifetime to keep and the share written at 1h. */
export type LoggedTtl = { readonly ttl: '5m' | '1h'; readonly oneHourShare: number };

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
  readonly pricedPrompts?: readonly PricedPrompt[] | undefined;
};

/**
 * A replay's result, every one made here with the same keys in the same order (`pricedPrompts`
 * undefined where none were kept): the results of walks, repricings and the fit then share one
 * hidden class, and the code that reads them is not thrown away when another shape arrives (a
 * spread of a result, or one without its kept prompts, made objects of other shapes).
 */
export function replayResult(
  rows: readonly ReplayRow[],
  from: Omit<ReplayResult, 'rows' | 'pricedPrompts'>,
  pricedPrompts: readonly PricedPrompt[] | undefined,
): ReplayResult {
  return {
    rows,
    compactions: from.compactions,
    overflows: from.overflows,
    failedTurns: from.failedTurns,
    summarizeRequests: from.summarizeRequests,
    pricedPrompts,
  };
}
