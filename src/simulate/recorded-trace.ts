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
import type { Segment } from './cache-model.js';
import type { TokenCalibration } from './calibrate.js';
import type {
  MessageRender,
  PromptRenderer,
  RenderedPrompt,
  ReplayMessage,
  ReplayPrompt,
  SummaryBlock,
} from './provider-view.js';
import { RenderedPrefix, staticBlockIdOf } from './provider-view.js';
import type { WalkCounts } from './replay.js';
import { isUnsizedWalk, walkUnsized } from './replay.js';
import type { ReplayMemo } from './replay-memo.js';
import type { ModelFacts, ReplayInput, ReplayResult, ReplayRow } from './replay-types.js';
import type { CompactionAttempt, ReplaySink, RowContext, SummarizerCall } from './row-emitter.js';
import { RowEmitter } from './row-emitter.js';
import { emptyObjectArray } from '../session/packed-array.js';

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
  private previous: readonly ReplayMessage[] = emptyObjectArray();

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
 * The visible history of each send, sized incrementally: what the kept prefix of messages
 * contributes is summed once when the message is added (a send costs its new messages plus a copy
 * of the segment list, not a pass over the history). The sums are those `PromptRenderer.render`
 * makes: a message's sizes depend on the calibration's ratio, which every model's calibration
 * shares (`calibrationForModel` changes only the static block).
 */
class IncrementalSizer {
  /** The last sized prompt's messages; its segments: the head's (`headLength` of them), then the messages'. */
  private readonly prefix = new RenderedPrefix();
  private headLength = 0;

  /** `keepRenders` false: each message's render is not kept in the renderer (a calibration used once, the probe's). */
  constructor(
    private readonly renderer: (model: string) => PromptRenderer,
    private readonly keepRenders: boolean,
  ) {}

  /**
   * The traced prompt decoded against the previous one and sized (`withSegments` false: its
   * segment list left empty). The segment list is this sizer's own, valid until the next call:
   * a caller that keeps it copies it (`RowEmitter.priced` with `keepPrompts`).
   */
  size(prompt: TracedPrompt, withSegments: boolean): ReplayPrompt {
    const head = this.decode(prompt);
    const prefix = this.prefix;
    const rendered: RenderedPrompt = {
      segments: withSegments ? prefix.segments : [],
      promptTokens: head.tokens + prefix.tokens,
      visibleChars: head.chars + prefix.chars,
      visibleUnits: head.units + prefix.units,
      fixedTokens: head.fixedTokens + prefix.fixed,
    };
    // The visible list is this sizer's own, changed by the next decode: the prompt is sized now.
    return { model: prompt.model, summary: prompt.summary, visible: prefix.visible, rendered };
  }

  /**
   * The calibration inputs of a traced send (`tracedSends`): `size`'s sums without the prompt
   * objects, which the calibration never reads.
   */
  send(prompt: TracedPrompt, sourceRequestIndex: number): TracedSend {
    const head = this.decode(prompt);
    const prefix = this.prefix;
    return {
      sourceRequestIndex,
      promptTokens: head.tokens + prefix.tokens,
      visibleChars: head.chars + prefix.chars,
      visibleUnits: head.units + prefix.units,
      fixedTokens: head.fixedTokens + prefix.fixed,
    };
  }

  /** Decodes a traced prompt whose sizes are not read, so that the next one decodes against it. */
  skip(prompt: TracedPrompt): void {
    this.decode(prompt);
  }

  /** The traced prompt decoded against the previous one: the prefix holds its messages, sized; returns its head. */
  private decode(prompt: TracedPrompt): MessageRender {
    const renderer = this.renderer(prompt.model);
    const head = renderer.head(staticBlockIdOf(prompt.model), prompt.summary);
    this.setHead(head.segments);
    const prefix = this.prefix;
    prefix.keep(prompt.kept, this.headLength);
    for (const message of prompt.added)
      prefix.add(message, renderer.message(message, this.keepRenders), this.headLength);
    return head;
  }

  /** The head's segments in front of the messages' (the same ones kept: a head is 1–3 segments). */
  private setHead(head: readonly Segment[]): void {
    const same =
      head.length === this.headLength &&
      head.every((segment, i) => {
        const current = this.prefix.segments[i];
        return current !== undefined && current.id === segment.id && current.tokens === segment.tokens;
      });
    if (same) return;
    this.prefix.segments.splice(0, this.headLength, ...head);
    this.headLength = head.length;
  }
}

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
  const sizer = new IncrementalSizer((model) => rows.renderer(model), true);
  // Read once: `input` is a spread of another shape per pricing, which its readers would see as polymorphic.
  const modelFacts = input.modelFacts;
  for (const event of trace.events) {
    switch (event.kind) {
      case 'mark':
        rows.markCompaction();
        break;
      case 'side':
        rows.side(event.request, event.nowMs);
        break;
      case 'rejected':
        rows.rejected(sizer.size(event.prompt, false), event.at);
        break;
      case 'summarize':
        rows.summarize(event.call, event.summaryChars, event.at);
        break;
      case 'priced':
        rows.priced(event.request, sizer.size(event.prompt, true), modelFacts(event.request.model), event.nowMs);
        break;
      case 'compaction': {
        const before = sizer.size(event.before, false);
        rows.compaction({ ...event.attempt, before, after: sizer.size(event.after, false) });
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

/** A measured request of the trace as the calibration reads it (`ReplayRow`'s calibration inputs). */
export type TracedSend = Pick<
  ReplayRow,
  'sourceRequestIndex' | 'promptTokens' | 'visibleChars' | 'visibleUnits' | 'fixedTokens'
>;

/**
 * The calibration inputs of every main-thread send the trace prices, in order, under
 * `calibration`: the `request` rows of `priceRecordedTrace` without pricing them through the cache.
 * `keepRenders`: each message's render is kept in the calibration's renderer (a calibration that is
 * priced next), else not (a calibration used once).
 */
export function tracedSends(
  trace: RecordedTrace,
  calibration: TokenCalibration,
  memo: ReplayMemo,
  keepRenders = false,
): TracedSend[] {
  const rows = new RowEmitter({ ...trace.input, calibration }, memo, false);
  const sizer = new IncrementalSizer((model) => rows.renderer(model), keepRenders);
  const sends: TracedSend[] = [];
  for (const event of trace.events) {
    switch (event.kind) {
      case 'priced':
        sends.push(sizer.send(event.prompt, event.request.index));
        break;
      case 'rejected':
        sizer.skip(event.prompt);
        break;
      case 'compaction':
        sizer.skip(event.before);
        sizer.skip(event.after);
        break;
      case 'mark':
      case 'side':
      case 'summarize':
        break;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }
  return sends;
}
