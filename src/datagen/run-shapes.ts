/**
 * Splits a session's responses over its user messages: run sizes, the kind of every response
 * (text only, text + tool, tool only) with exact totals, and the idle gaps between runs.
 */
import type { Rng } from './rng.js';
import type { PasteKind, ResponseKind, RunPlan } from './session-plan.js';

export interface RunShapeSpec {
  readonly users: number;
  readonly responses: number;
  /** Responses with text and no tool call (each run ends with one; the rest fall mid-run). */
  readonly textOnly: number;
  /** Responses with a tool call and no text. */
  readonly toolOnly: number;
  /** For each run after the first: 'short' (20–120 s) or 'long' (7–35 min) idle before the user message. */
  readonly idle: readonly ('short' | 'long')[];
  readonly paste: (runIndex: number) => { readonly kind: PasteKind; readonly chars: number };
  readonly parallelCalls: boolean;
}

/**
 * Idle gaps keep clear of the 5-minute line (the RC3 idle rule and the cache TTL), so that the
 * request timestamps chosen by a reader (request or response time) cannot flip a cache decision.
 */
export function idleMs(rng: Rng, kind: 'short' | 'long'): number {
  return kind === 'short' ? rng.int(20_000, 120_000) : rng.int(420_000, 2_100_000);
}

/** Run plans with exactly the requested totals. */
export function shapeRuns(rng: Rng, spec: RunShapeSpec): RunPlan[] {
  if (spec.idle.length !== spec.users - 1) throw new Error('shapeRuns: one idle kind per run after the first');
  if (spec.textOnly < spec.users) throw new Error('shapeRuns: every run ends with a text response');
  const weights = Array.from({ length: spec.users }, () => rng.int(60, 150));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(3, Math.floor((spec.responses * w) / totalWeight)));
  let diff = spec.responses - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % sizes.length) {
    const size = sizes[i] ?? 3;
    if (diff > 0) {
      sizes[i] = size + 1;
      diff--;
    } else if (size > 3) {
      sizes[i] = size - 1;
      diff++;
    }
  }
  const kinds: ResponseKind[][] = sizes.map((n) => Array.from({ length: n }, (): ResponseKind => 'text+tool'));
  const midSlots: [number, number][] = [];
  kinds.forEach((run, r) => {
    run[run.length - 1] = 'text';
    for (let i = 1; i < run.length - 2; i++) midSlots.push([r, i]);
  });
  // Mid-run text responses are never adjacent to another text response.
  let needed = spec.textOnly - spec.users;
  for (const [r, i] of rng.sample(midSlots, midSlots.length)) {
    if (needed === 0) break;
    const run = kinds[r];
    if (run === undefined || run[i - 1] === 'text' || run[i + 1] === 'text') continue;
    run[i] = 'text';
    needed--;
  }
  if (needed > 0) throw new Error('shapeRuns: not enough room for the mid-run text responses');
  const toolSlots: [number, number][] = [];
  kinds.forEach((run, r) => run.forEach((k, i) => (k === 'text+tool' ? toolSlots.push([r, i]) : undefined)));
  for (const [r, i] of rng.sample(toolSlots, spec.toolOnly)) {
    const run = kinds[r];
    if (run !== undefined) run[i] = 'tool';
  }
  return kinds.map((responses, r) => {
    const paste = spec.paste(r);
    return {
      idleBeforeMs: r === 0 ? 0 : idleMs(rng, spec.idle[r - 1] ?? 'short'),
      paste: paste.kind,
      pasteChars: paste.chars,
      responses,
      parallelCalls: spec.parallelCalls,
    };
  });
}
