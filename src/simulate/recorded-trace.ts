/**
 * The `recorded` replay walked once and priced under each calibration (replay.md §5). Fitting the
 * recorded policy needs the same walk under several calibrations: a probe that learns what was
 * visible at each measured request, the calibrated replay, FreeCode's reload break (engine.md
 * §5.6) and the automatic cache's facts. In the `recorded` scenario without tool-result editing
 * no decision of the walk reads a size (compactions and refusals are the log's, pruning counts
 * characters), so the walk is the same under every calibration: it is recorded once, unsized
 * (`walkUnsized`), and each calibration only sizes and prices the recorded sends. The rows are
 * exactly those of `replaySession` with the same input (property-tested).
 *
 * Memory: a send's visible history is kept as the length it shares with the previous send's and
 * the messages after it (a session's sends mostly extend the previous one), so a trace grows with
 * the messages sent, not with sends × history.
 */
import type { Request } from '../session/model.js';
import type { ReplayMessage, ReplayPrompt, SummaryBlock } from './provider-view.js';
import type { WalkCounts } from './replay.js';
import { isUnsizedWalk, walkUnsized } from './replay.js';
import type { ReplayMemo } from './replay-memo.js';
import type { ModelFacts, ReplayInput, ReplayResult } from './replay-types.js';
import type { CompactionAttempt, ReplaySink, RowContext, SummarizerCall } from './row-emitter.js';
import { RowEmitter } from './row-emitter.js';

/** A send's prompt: the model, the summary block, and its visible history as a change of the previous send's. */
type TracedPrompt = {
  readonly model: string;
  readonly summary: SummaryBlock | null;
  /** Messages kept from the previous traced prompt's visible history (a prefix of it). */
  readonly kept: number;
  /** The messages after them. */
  readonly added: readonly ReplayMessage[];
};

type TraceEvent =
  | { readonly kind: 'mark' }
  | { readonly kind: 'side'; readonly request: Request; readonly nowMs: number | null }
  | { readonly kind: 'rejected'; readonly prompt: TracedPrompt; readonly at: RowContext }
  | {
      readonly kind: 'summarize';
      readonly call: SummarizerCall;
      readonly summaryChars: number;
      readonly at: RowContext;
    }
  | { readonly kind: 'priced'; readonly request: Request; readonly prompt: TracedPrompt; readonly nowMs: number | null }
  | {
      readonly kind: 'compaction';
      readonly attempt: Omit<CompactionAttempt, 'before' | 'after'>;
      readonly before: TracedPrompt;
      readonly after: TracedPrompt;
    };

/** One walk of the `recorded` scenario, unsized; `priceRecordedTrace` prices it under a calibration. */
export type RecordedTrace = {
  /** The walk's input (its calibration is not read). */
  readonly input: ReplayInput;
  readonly events: readonly TraceEvent[];
  readonly counts: WalkCounts;
  /** Whether the walk made FreeCode's reload copies, so that it can be priced with and without the reload break. */
  readonly withReloads: boolean;
};

/** The sink of an unsized walk: every send kept in order, each visible history as a change of the previous one. */
class TraceRecorder implements ReplaySink {
  readonly events: TraceEvent[] = [];
  private previous: readonly ReplayMessage[] = [];

  markCompaction(): void {
    this.events.push({ kind: 'mark' });
  }

  side(request: Request, nowMs: number | null): void {
    this.events.push({ kind: 'side', request, nowMs });
  }

  rejected(prompt: ReplayPrompt, at: RowContext): void {
    this.events.push({ kind: 'rejected', prompt: this.traced(prompt), at });
  }

  summarize(call: SummarizerCall, summaryChars: number, at: RowContext): void {
    this.events.push({ kind: 'summarize', call, summaryChars, at });
  }

  priced(request: Request, prompt: ReplayPrompt, _facts: ModelFacts, nowMs: number | null): null {
    this.events.push({ kind: 'priced', request, prompt: this.traced(prompt), nowMs });
    return null;
  }

  compaction(attempt: CompactionAttempt): void {
    const { before, after, ...rest } = attempt;
    // In the order the pricing decodes them: before, then after.
    const tracedBefore = this.traced(before);
    this.events.push({ kind: 'compaction', attempt: rest, before: tracedBefore, after: this.traced(after) });
  }

  private traced(prompt: ReplayPrompt): TracedPrompt {
    const visible = prompt.visible;
    const previous = this.previous;
    const limit = Math.min(visible.length, previous.length);
    let kept = 0;
    while (kept < limit && visible[kept] === previous[kept]) kept += 1;
    this.previous = visible;
    return { model: prompt.model, summary: prompt.summary, kept, added: visible.slice(kept) };
  }
}

/**
 * The `recorded` replay of `input` walked once, unsized. `withReloads`: the walk makes FreeCode's
 * reload copies (as `reloadBreaks` does in the newest engine) so that `priceRecordedTrace` can
 * price it with or without the reload break; they change only segment ids (engine.md §5.6).
 */
export function traceRecordedReplay(input: ReplayInput, memo: ReplayMemo, withReloads: boolean): RecordedTrace {
  if (!isUnsizedWalk(input.scenario)) throw new Error('invariant: only the recorded scenario is traced');
  const recorder = new TraceRecorder();
  const walkInput: ReplayInput = { ...input, reloadBreaks: withReloads };
  const counts = walkUnsized(walkInput, memo, recorder);
  return { input: walkInput, events: recorder.events, counts, withReloads };
}

/** What a pricing of a trace sets: the calibration and the cache facts of `ReplayInput`. */
export type TracePricing = Pick<
  ReplayInput,
  'calibration' | 'warmStaticTokens' | 'transientMissRate' | 'automaticTtlMs' | 'keepPrompts' | 'reloadBreaks'
>;

/**
 * The trace's rows under `pricing`: exactly `replaySession({ ...trace input, ...pricing })`.
 * `memo` is the one the walk used (its renderers size the same message objects).
 */
export function priceRecordedTrace(trace: RecordedTrace, pricing: TracePricing, memo: ReplayMemo): ReplayResult {
  const reloadBreaks = pricing.reloadBreaks === true;
  if (reloadBreaks && !trace.withReloads)
    throw new Error('invariant: a trace walked without reload copies is priced without the reload break');
  const input: ReplayInput = { ...trace.input, ...pricing };
  const rows = new RowEmitter(input, memo, reloadBreaks);
  const visible: ReplayMessage[] = [];
  const decode = (prompt: TracedPrompt): ReplayPrompt => {
    visible.length = prompt.kept;
    for (const message of prompt.added) visible.push(message);
    // Sized at once: the next prompt decoded reuses `visible`.
    const unsized: ReplayPrompt = { model: prompt.model, summary: prompt.summary, visible, rendered: null };
    return { ...unsized, rendered: rows.sizeOf(unsized) };
  };
  for (const event of trace.events) {
    switch (event.kind) {
      case 'mark':
        rows.markCompaction();
        break;
      case 'side':
        rows.side(event.request, event.nowMs);
        break;
      case 'rejected':
        rows.rejected(decode(event.prompt), event.at);
        break;
      case 'summarize':
        rows.summarize(event.call, event.summaryChars, event.at);
        break;
      case 'priced':
        rows.priced(event.request, decode(event.prompt), input.modelFacts(event.request.model), event.nowMs);
        break;
      case 'compaction': {
        const before = decode(event.before);
        rows.compaction({ ...event.attempt, before, after: decode(event.after) });
        break;
      }
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }
  return rows.result(trace.counts);
}
