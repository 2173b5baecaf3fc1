/**
 * What a detector examines: one session under one scenario as a list of billed requests, the
 * compaction attempts, the rejected (overflowing) sends and the failed turns. The `recorded`
 * trace is the log itself (measured usage and recorded events; the recorded replay fills in a
 * request the log did not measure); a scenario trace is that scenario's replay. Every trace
 * also keeps replay rows to price comparisons with, so that two scenarios are always compared
 * replay against replay and modelling error cancels (replay.md §3).
 */
import { billedWrite5mTokens, type CacheClassTokens } from '../session/cache-class-tokens.js';
import { isContextOverflowError } from '../engine/overflow.js';
import { usableWindow } from '../engine/tokens.js';
import type { HarnessEvent, Session } from '../session/model.js';
import { emptyObjectArray, mapPacked } from '../session/packed-array.js';
import type { ModelFacts, ReplayCompaction, ReplayResult, ReplayRow } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import type { FlagBasis } from './flag.js';

/** Tokens of one billed request by cache class; `promptTokens = read + write5m + write1h + uncached`. */
export type TraceUsage = CacheClassTokens;

export type TraceRequest = TraceUsage & {
  /** The log's request index. */
  readonly requestIndex: number;
  readonly model: string;
  readonly timestampMs: number | null;
  /** The main agent's request (not subagent or side traffic, which carry other prompts). */
  readonly main: boolean;
  readonly basis: FlagBasis;
  /** A completed compaction came between the previous request and this one. */
  readonly compactionBefore: boolean;
  /** Real user messages before this request (synthetic pokes and steers do not start a turn). */
  readonly userTurn: number;
};

export type TraceCompactionTrigger = 'threshold' | 'overflow' | 'manual' | 'unknown';
export type TraceCompactionOutcome = 'compacted' | 'blocked' | 'nothing-to-compact';

/** One compaction attempt. Token counts are null where the log does not tell them. */
export type TraceCompaction = {
  /** The request it preceded (the request count when it came after the last one). */
  readonly requestIndex: number;
  readonly userTurn: number;
  readonly trigger: TraceCompactionTrigger;
  readonly outcome: TraceCompactionOutcome;
  /** The prompt as the provider counts it, before and after. */
  readonly promptTokensBefore: number | null;
  readonly promptTokensAfter: number | null;
  /** FreeCode's own estimate (`ceil(chars / 4)` of its memory transcript, engine.md §6.6). */
  readonly estimateTokensBefore: number | null;
  readonly estimateTokensAfter: number | null;
};

/** A send the provider refused because the prompt exceeded the window. */
export type TraceRejection = {
  readonly requestIndex: number;
  readonly userTurn: number;
  /** The refused prompt's size when known (the log does not measure a refused request). */
  readonly promptTokens: number | null;
};

/** A turn that ended because its prompt still did not fit after the overflow retries (replay.md §4 step 5). */
export type TraceFailure = { readonly requestIndex: number; readonly userTurn: number };

export type Trace = {
  readonly sessionId: string;
  /** `recorded` or the scenario's name. */
  readonly scenario: string;
  readonly requests: readonly TraceRequest[];
  readonly compactions: readonly TraceCompaction[];
  readonly rejections: readonly TraceRejection[];
  readonly failures: readonly TraceFailure[];
  /** Replay rows priced for comparisons between traces (the recorded replay's for `recorded`). */
  readonly rows: readonly ReplayRow[];
  /** The scenario's own cost target; null = held to the configured one. */
  readonly targetTokens: number | null;
  /** The primary model's context window under this trace (a scenario may override it). */
  readonly windowTokens: number | null;
  /** The window minus the output reservation (engine.md §1.4). */
  readonly usableWindowTokens: number | null;
  /** Real user messages in the session. */
  readonly userMessages: number;
  /** The log's request count (request indices run from 0 to `requestCount - 1`). */
  readonly requestCount: number;
};

/** Real user messages before each item index: `turns[i]` counts those at indices < i. */
function userTurnsByItem(session: Session): number[] {
  const turns: number[] = [0];
  let count = 0;
  for (const item of session.items) {
    if (item.kind === 'user' && item.synthetic === null) count += 1;
    turns.push(count);
  }
  return turns;
}

type TurnLookup = {
  readonly ofItem: (itemIndex: number) => number;
  readonly ofRequest: (requestIndex: number) => number;
  readonly total: number;
};

function turnLookup(session: Session): TurnLookup {
  const turns = userTurnsByItem(session);
  const total = turns[turns.length - 1] ?? 0;
  const ofItem = (itemIndex: number): number => turns[Math.min(itemIndex, turns.length - 1)] ?? 0;
  return {
    ofItem,
    ofRequest: (requestIndex) => {
      const request = session.requests[requestIndex];
      return request === undefined ? total : ofItem(request.itemIndex);
    },
    total,
  };
}

function windowFacts(facts: ModelFacts, scenario: Scenario | null): Pick<Trace, 'windowTokens' | 'usableWindowTokens'> {
  const windowTokens = scenario?.params.windowTokens ?? facts.contextWindowTokens;
  if (windowTokens === null) return { windowTokens: null, usableWindowTokens: null };
  return {
    windowTokens,
    usableWindowTokens: usableWindow(windowTokens, facts.maxOutputTokens ?? undefined) ?? windowTokens,
  };
}

function isPreCompactBlock(event: HarnessEvent): boolean {
  return event.kind === 'hook_block' && event.hookName.toLowerCase().replace(/[^a-z]/g, '') === 'precompact';
}

function isOverflowError(event: HarnessEvent): boolean {
  return (
    event.kind === 'model_error' && isContextOverflowError(Object.assign(new Error(event.message), { status: 400 }))
  );
}

/** What a trace request says besides its usage. */
type TraceRequestHead = Omit<TraceRequest, keyof TraceUsage | 'basis'>;

/**
 * One trace request, its fields written out (spreading the head and the usage into one literal
 * took ~9 µs a request: V8's slow path for a spread followed by more properties).
 */
function traceRequest(head: TraceRequestHead, basis: FlagBasis, usage: TraceUsage): TraceRequest {
  return {
    requestIndex: head.requestIndex,
    model: head.model,
    timestampMs: head.timestampMs,
    main: head.main,
    compactionBefore: head.compactionBefore,
    userTurn: head.userTurn,
    basis,
    promptTokens: usage.promptTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWrite5mTokens: usage.cacheWrite5mTokens,
    cacheWrite1hTokens: usage.cacheWrite1hTokens,
    uncachedInputTokens: usage.uncachedInputTokens,
    outputTokens: usage.outputTokens,
  };
}

/**
 * The log itself: measured usage where the log has it (a write whose 5m/1h split is unknown
 * counts as 5m, the default every agent writes), the recorded replay's row where it does not;
 * compactions, hook blocks and overflows as the log's events record them.
 */
export function recordedTrace(session: Session, recordedReplay: ReplayResult, facts: ModelFacts): Trace {
  const turns = turnLookup(session);
  const compactedBefore = new Set(
    session.events.filter((event) => event.kind === 'compaction').map((event) => event.requestIndex),
  );
  // The recorded replay's request rows by the log's request, looked up only for a request the log
  // did not measure (most logs measure every one): built on the first such request.
  let replayed: Map<number, ReplayRow> | null = null;
  const replayedRow = (requestIndex: number): ReplayRow | undefined => {
    if (replayed === null) {
      replayed = new Map();
      for (const row of recordedReplay.rows) {
        if (row.kind === 'request' && row.sourceRequestIndex !== null) replayed.set(row.sourceRequestIndex, row);
      }
    }
    return replayed.get(requestIndex);
  };
  const requests: TraceRequest[] = emptyObjectArray();
  for (const request of session.requests) {
    const usage = request.usage;
    const common = {
      requestIndex: request.index,
      model: request.model,
      timestampMs: request.timestampMs,
      main: request.agentId === null,
      compactionBefore: compactedBefore.has(request.index),
      userTurn: turns.ofItem(request.itemIndex),
    };
    if (usage !== null) {
      const write1h = usage.cacheWrite1hTokens ?? 0;
      requests.push(
        traceRequest(common, 'measured', {
          promptTokens: usage.promptTokens,
          cacheReadTokens: usage.cacheReadTokens,
          cacheWrite5mTokens: billedWrite5mTokens(usage),
          cacheWrite1hTokens: write1h,
          uncachedInputTokens: usage.uncachedInputTokens,
          outputTokens: usage.outputTokens,
        }),
      );
      continue;
    }
    const row = replayedRow(request.index);
    if (row !== undefined) requests.push(traceRequest(common, 'simulated', row));
  }

  // The main agent's prompt by request index, read only around compaction events and hook blocks:
  // built on the first read.
  let mainPrompts: Map<number, number> | null = null;
  const mainPrompt = (requestIndex: number): number | undefined => {
    mainPrompts ??= new Map(
      requests.filter((request) => request.main).map((request) => [request.requestIndex, request.promptTokens]),
    );
    return mainPrompts.get(requestIndex);
  };
  const promptBefore = (requestIndex: number): number | undefined => {
    for (let index = requestIndex - 1; index >= 0; index--) {
      const prompt = mainPrompt(index);
      if (prompt !== undefined) return prompt;
    }
    return undefined;
  };
  // The measured prompt right before an event and right after it, when no other compaction
  // event sits in between (then the measurement describes another context).
  const compactionEvents = session.events.filter((event) => event.kind === 'compaction');
  const compactions: TraceCompaction[] = emptyObjectArray();
  for (const event of session.events) {
    if (event.kind === 'compaction') {
      const position = compactionEvents.indexOf(event);
      const previous = compactionEvents[position - 1];
      const next = compactionEvents[position + 1];
      const firstOfPoint = previous === undefined || previous.requestIndex !== event.requestIndex;
      const lastOfPoint = next === undefined || next.requestIndex !== event.requestIndex;
      const provider = event.tokenUnit === 'provider';
      compactions.push({
        requestIndex: event.requestIndex,
        userTurn: turns.ofItem(event.itemIndex),
        trigger: event.trigger === 'auto' ? 'threshold' : event.trigger,
        outcome: 'compacted',
        promptTokensBefore:
          (firstOfPoint ? promptBefore(event.requestIndex) : undefined) ?? (provider ? event.tokensBefore : null),
        promptTokensAfter:
          (lastOfPoint ? mainPrompt(event.requestIndex) : undefined) ?? (provider ? event.tokensAfter : null),
        estimateTokensBefore: provider ? null : event.tokensBefore,
        estimateTokensAfter: provider ? null : event.tokensAfter,
      });
    } else if (isPreCompactBlock(event)) {
      compactions.push({
        requestIndex: event.requestIndex,
        userTurn: turns.ofItem(event.itemIndex),
        trigger: 'threshold',
        outcome: 'blocked',
        promptTokensBefore: promptBefore(event.requestIndex) ?? null,
        promptTokensAfter: null,
        estimateTokensBefore: null,
        estimateTokensAfter: null,
      });
    }
  }

  // FreeCode logs each refused send as a model error; formats without one log overflow events.
  const errors = session.events.filter(isOverflowError);
  const refusals = errors.length > 0 ? errors : session.events.filter((event) => event.kind === 'overflow');
  // Packed arrays of objects whichever tier runs (`mapPacked`): the detectors iterate every trace's.
  const rejections: TraceRejection[] = mapPacked(refusals, (event) => ({
    requestIndex: event.requestIndex,
    userTurn: turns.ofItem(event.itemIndex),
    promptTokens: null,
  }));
  // A turn failed when no request of it was sent after its last refusal.
  const failures: TraceFailure[] = emptyObjectArray();
  const lastRefusalByTurn = new Map<number, TraceRejection>();
  for (const rejection of rejections) lastRefusalByTurn.set(rejection.userTurn, rejection);
  // The last request of each turn, found in one pass (a search per refused turn is quadratic).
  const lastRequestOfTurn = new Map<number, number>();
  for (const request of requests) {
    const last = lastRequestOfTurn.get(request.userTurn);
    if (last === undefined || request.requestIndex > last)
      lastRequestOfTurn.set(request.userTurn, request.requestIndex);
  }
  for (const [turn, rejection] of lastRefusalByTurn) {
    const sentAfter = (lastRequestOfTurn.get(turn) ?? -1) >= rejection.requestIndex;
    if (!sentAfter) failures.push({ requestIndex: rejection.requestIndex, userTurn: turn });
  }

  return {
    sessionId: session.id,
    scenario: 'recorded',
    requests,
    compactions,
    rejections,
    failures,
    rows: recordedReplay.rows,
    targetTokens: null,
    ...windowFacts(facts, null),
    userMessages: turns.total,
    requestCount: session.requests.length,
  };
}

function replayTrigger(compaction: ReplayCompaction): TraceCompactionTrigger {
  switch (compaction.trigger) {
    case 'threshold':
    case 'overflow':
    case 'manual':
      return compaction.trigger;
    case 'recorded':
      return 'unknown';
    default: {
      const unreachable: never = compaction.trigger;
      return unreachable;
    }
  }
}

/** A simulated scenario: its replay's rows, compactions, rejected sends and failed turns. */
export function scenarioTrace(session: Session, scenario: Scenario, result: ReplayResult, facts: ModelFacts): Trace {
  const turns = turnLookup(session);
  const requests: TraceRequest[] = emptyObjectArray();
  for (const row of result.rows) {
    if (row.kind !== 'request' || row.sourceRequestIndex === null) continue;
    // Written out in `traceRequest`'s order (one object a row instead of a head and the request).
    requests.push({
      requestIndex: row.sourceRequestIndex,
      model: row.model,
      timestampMs: row.timestampMs,
      main: session.requests[row.sourceRequestIndex]?.agentId === null,
      compactionBefore: row.compactionBefore,
      userTurn: turns.ofRequest(row.sourceRequestIndex),
      basis: 'simulated',
      promptTokens: row.promptTokens,
      cacheReadTokens: row.cacheReadTokens,
      cacheWrite5mTokens: row.cacheWrite5mTokens,
      cacheWrite1hTokens: row.cacheWrite1hTokens,
      uncachedInputTokens: row.uncachedInputTokens,
      outputTokens: row.outputTokens,
    });
  }
  const compactions: TraceCompaction[] = mapPacked(result.compactions, (compaction) => {
    const outcome: TraceCompactionOutcome = compaction.hookBlocked
      ? 'blocked'
      : compaction.compacted
        ? 'compacted'
        : 'nothing-to-compact';
    const done = outcome === 'compacted';
    return {
      requestIndex: compaction.requestIndex,
      userTurn: turns.ofRequest(compaction.requestIndex),
      trigger: replayTrigger(compaction),
      outcome,
      promptTokensBefore: compaction.promptTokensBefore,
      promptTokensAfter: done ? compaction.promptTokensAfter : null,
      estimateTokensBefore: compaction.estimateTokensBefore,
      estimateTokensAfter: done ? compaction.estimateTokensAfter : null,
    };
  });
  const rejections: TraceRejection[] = mapPacked(
    result.rows.filter((row) => row.kind === 'rejected_overflow'),
    (row) => ({
      requestIndex: row.requestIndex,
      userTurn: turns.ofRequest(row.requestIndex),
      promptTokens: row.promptTokens,
    }),
  );
  // The log's requests the replay sent, needed only where it refused a send (most replays refuse none).
  const sent = new Set<number>();
  if (rejections.length > 0) {
    for (const row of result.rows)
      if (row.kind === 'request' && row.sourceRequestIndex !== null) sent.add(row.sourceRequestIndex);
  }
  const failures: TraceFailure[] = mapPacked(
    [...new Set(rejections.map((rejection) => rejection.requestIndex))].filter(
      (requestIndex) => requestIndex < session.requests.length && !sent.has(requestIndex),
    ),
    (requestIndex) => ({ requestIndex, userTurn: turns.ofRequest(requestIndex) }),
  );
  return {
    sessionId: session.id,
    scenario: scenario.name,
    requests,
    compactions,
    rejections,
    failures,
    rows: result.rows,
    targetTokens: scenario.params.compaction === 'engine' ? scenario.params.targetTokens : null,
    ...windowFacts(facts, scenario),
    userMessages: turns.total,
    requestCount: session.requests.length,
  };
}
