/**
 * Hand-written traces for detector tests: each request's usage is given directly, so that every
 * threshold can be hit exactly and the dollars computed by hand (claude-sonnet-4-5: input $3,
 * read $0.30, 5m write $3.75, 1h write $6, output $15 per MTok).
 */
import { loadBundledPriceTable, modelFacts, resolveCacheRules } from '../../src/cost/index.js';
import type { DetectorInput } from '../../src/detect/detector.js';
import type { FlagThresholds } from '../../src/detect/thresholds.js';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import type { Trace, TraceCompaction, TraceRequest } from '../../src/detect/trace.js';
import type { Session } from '../../src/session/model.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { CacheRules } from '../../src/provider/cache-rules.js';
import type { ModelFacts, ReplayRow } from '../../src/simulate/replay.js';

export const PRICES = loadBundledPriceTable();
export const MODEL = 'claude-sonnet-4-5';
export const T0 = Date.UTC(2026, 9, 1, 9, 0, 0);

/** Model facts from the bundled price table (what the CLI's lookup gives, without loading ingest). */
export function factsOf(model: string, provider: string | null = 'anthropic'): ModelFacts {
  const facts = modelFacts(PRICES, model);
  return {
    contextWindowTokens: facts?.contextWindowTokens ?? null,
    maxOutputTokens: facts?.maxOutputTokens ?? null,
    rules: resolveCacheRules(PRICES, model, provider).rules,
  };
}

export type RequestSpec = {
  readonly prompt: number;
  readonly read?: number;
  readonly write5m?: number;
  readonly write1h?: number;
  readonly output?: number;
  /** Seconds after T0 (default: 10 s per request). */
  readonly atS?: number;
  readonly model?: string;
  readonly compactionBefore?: boolean;
  readonly userTurn?: number;
  readonly main?: boolean;
};

/** Requests from specs; what is neither read nor written is uncached. */
export function requests(specs: readonly RequestSpec[]): TraceRequest[] {
  return specs.map((spec, index) => {
    const read = spec.read ?? 0;
    const write5m = spec.write5m ?? 0;
    const write1h = spec.write1h ?? 0;
    if (read + write5m + write1h > spec.prompt) throw new Error(`request ${index}: read + writes exceed the prompt`);
    return {
      requestIndex: index,
      model: spec.model ?? MODEL,
      timestampMs: T0 + (spec.atS ?? index * 10) * 1000,
      main: spec.main ?? true,
      basis: 'measured',
      compactionBefore: spec.compactionBefore ?? false,
      userTurn: spec.userTurn ?? 1,
      promptTokens: spec.prompt,
      cacheReadTokens: read,
      cacheWrite5mTokens: write5m,
      cacheWrite1hTokens: write1h,
      uncachedInputTokens: spec.prompt - read - write5m - write1h,
      outputTokens: spec.output ?? 100,
    };
  });
}

/** A growing conversation whose cache works: each request reads the previous prompt and writes its growth. */
export function stableRequests(prompts: readonly number[], extra: Partial<RequestSpec> = {}): TraceRequest[] {
  return requests(
    prompts.map((prompt, i) => ({
      ...extra,
      prompt,
      read: i === 0 ? 0 : Math.min(prompts[i - 1] ?? 0, prompt),
      write5m: i === 0 ? prompt : Math.max(0, prompt - (prompts[i - 1] ?? 0)),
    })),
  );
}

/** Replay rows with the same usage as the requests (what a trace prices comparisons with). */
export function rowsOf(list: readonly TraceRequest[]): ReplayRow[] {
  return list.map((request, rowIndex) => ({
    rowIndex,
    sourceRequestIndex: request.requestIndex,
    requestIndex: request.requestIndex,
    kind: 'request',
    model: request.model,
    timestampMs: request.timestampMs,
    promptTokens: request.promptTokens,
    cacheReadTokens: request.cacheReadTokens,
    cacheWrite5mTokens: request.cacheWrite5mTokens,
    cacheWrite1hTokens: request.cacheWrite1hTokens,
    uncachedInputTokens: request.uncachedInputTokens,
    outputTokens: request.outputTokens,
    contextTokensAfter: request.promptTokens + request.outputTokens,
    compactionBefore: request.compactionBefore,
    overflowRetries: 0,
    visibleChars: 0,
    visibleUnits: 0,
    fixedTokens: 0,
  }));
}

/** A modelled summarizer call made for request `requestIndex` (uncached prompt). */
export function summarizeRow(requestIndex: number, prompt: number, output: number): ReplayRow {
  return {
    rowIndex: 0,
    sourceRequestIndex: null,
    requestIndex,
    kind: 'summarize',
    model: MODEL,
    timestampMs: T0,
    promptTokens: prompt,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    uncachedInputTokens: prompt,
    outputTokens: output,
    contextTokensAfter: prompt + output,
    compactionBefore: false,
    overflowRetries: 0,
    visibleChars: 0,
    visibleUnits: 0,
    fixedTokens: 0,
  };
}

export function compaction(requestIndex: number, fields: Partial<TraceCompaction> = {}): TraceCompaction {
  return {
    requestIndex,
    userTurn: 1,
    trigger: 'threshold',
    outcome: 'compacted',
    promptTokensBefore: null,
    promptTokensAfter: null,
    estimateTokensBefore: null,
    estimateTokensAfter: null,
    ...fields,
  };
}

/** A trace of the given requests (rows default to the same usage) on a 200K window (usable 168K). */
export function trace(fields: Partial<Trace> & { readonly requests: readonly TraceRequest[] }): Trace {
  return {
    sessionId: 's1',
    scenario: 'recorded',
    compactions: [],
    rejections: [],
    failures: [],
    rows: rowsOf(fields.requests),
    targetTokens: null,
    windowTokens: 200_000,
    usableWindowTokens: 168_000,
    userMessages: 1,
    requestCount: fields.requests.length,
    ...fields,
  };
}

const EMPTY_SESSION: Session = {
  id: 's1',
  source: 'freecode',
  title: null,
  project: null,
  files: [],
  items: [],
  requests: [],
  events: [],
  issues: [],
  parentSessionId: null,
  totalsOnly: null,
};

/** A detector input: the trace, a baseline (by default a trace named `freecode@120000` with the same requests) and thresholds. */
export function input(
  examined: Trace,
  options: {
    readonly baseline?: Trace;
    readonly hookAllowedBaseline?: Trace | null;
    readonly thresholds?: Partial<FlagThresholds>;
    readonly rules?: CacheRules;
  } = {},
): DetectorInput {
  return {
    session: EMPTY_SESSION,
    trace: examined,
    baseline: options.baseline ?? { ...examined, scenario: 'freecode@120000' },
    hookAllowedBaseline: () => options.hookAllowedBaseline ?? null,
    prices: PRICES,
    cacheRules: () => options.rules ?? CACHE_RULES.anthropic,
    thresholds: { ...DEFAULT_THRESHOLDS, ...options.thresholds },
  };
}

/** Dollars in pico-dollars: `usd(3.75)` = 3_750_000_000_000n. */
export function pico(usdValue: number): bigint {
  return BigInt(Math.round(usdValue * 1e6)) * 1_000_000n;
}
