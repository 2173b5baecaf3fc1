/** The context size a trace is held to, and the facts flags quote about its context. */
import type { FlagThresholds } from './thresholds.js';
import type { Trace, TraceRequest } from './trace.js';

/**
 * The ceiling: the trace's own target (a scenario with one) or the configured target, never above
 * the usable window (engine.md §1.2: FreeCode's limit is `min(window, target)`).
 */
export function ceilingTokens(trace: Trace, thresholds: FlagThresholds): number {
  const target = trace.targetTokens ?? thresholds.targetTokens;
  return trace.usableWindowTokens === null ? target : Math.min(target, trace.usableWindowTokens);
}

/** The main agent's requests (side traffic carries other prompts). */
export function mainRequests(trace: Trace): readonly TraceRequest[] {
  return trace.requests.filter((request) => request.main);
}

/** The largest prompt of the main agent (0 without requests). */
export function peakPromptTokens(trace: Trace): number {
  let peak = 0;
  for (const request of trace.requests) if (request.main && request.promptTokens > peak) peak = request.promptTokens;
  return peak;
}

/** Completed compactions in the trace. */
export function completedCompactions(trace: Trace): number {
  return trace.compactions.filter((compaction) => compaction.outcome === 'compacted').length;
}

/** A request index clamped into the log's requests (an event after the last request names the count). */
export function clampRequestIndex(trace: Trace, requestIndex: number): number {
  return Math.max(0, Math.min(requestIndex, trace.requestCount - 1));
}

/** "on a 968K usable window" or "" when the window is unknown. */
export function windowClause(trace: Trace, format: (tokens: number) => string): string {
  return trace.usableWindowTokens === null ? '' : ` on a ${format(trace.usableWindowTokens)} usable window`;
}
