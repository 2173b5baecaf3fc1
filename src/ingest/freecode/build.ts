/**
 * One FreeCode session from its parsed files (engine.md §6, §7, §4.2): the rollout gives the
 * complete sequence of requests, tool calls and harness events; the store gives the text of what
 * it still holds (after a compaction, only the tail, §7.7) and the user prompts; memory.json gives
 * compaction summaries and the prompt text the store lost. Either the rollout or the store alone
 * still yields a session. Pure: no I/O; every problem becomes an ingest issue.
 */
import type {
  HarnessEvent,
  IngestIssue,
  Item,
  MeasuredUsage,
  Request,
  Session,
  SummaryItem,
  UserItem,
} from '../../session/model.js';
import { emptyObjectArray, mapPacked } from '../../session/packed-array.js';
import type { ContentMode } from '../content-mode.js';
import { alignStore, hasTextLine, type ResponseMatch, toolCallNamesOf } from './align.js';
import {
  itemsFromRolloutCall,
  itemsFromStoreLine,
  promptCharsOf,
  textItemFromRollout,
  userItem,
  userItemFromStore,
} from './items.js';
import type { MemoryFile, MemorySummary } from './memory.js';
import { projectPathFromDirName } from './project-dir.js';
import type { RolloutRecord } from './rollout.js';
import { activePath, EMPTY_META, type StoreMessage, type StoreMeta } from './store.js';
import {
  buildTimeline,
  type EventDraft,
  type RolloutCall,
  type RolloutResponse,
  type UserPlaceholder,
} from './timeline.js';

export type RolloutSource = { readonly file: string; readonly records: readonly RolloutRecord[] };

export type StoreSource = {
  readonly messagesFile: string | null;
  readonly metaFile: string | null;
  /** The `<projectDir>` the session directory sits in (§7.1), when known. */
  readonly projectDir: string | null;
  /** Every parsed line in file order (all branches). */
  readonly messages: readonly StoreMessage[];
  readonly meta: StoreMeta;
};

export type MemorySource = { readonly file: string; readonly memory: MemoryFile };

export type FreecodeSessionInput = {
  readonly sessionId: string;
  readonly files: readonly string[];
  /** Issues already found while reading the files. */
  readonly issues: readonly IngestIssue[];
  readonly rollout: RolloutSource | null;
  readonly store: StoreSource | null;
  readonly memory: MemorySource | null;
};

export type BuildOptions = { readonly content: ContentMode };

/** Model name used when no source names one; it prices as "unpriced", never as $0. */
export const UNKNOWN_MODEL = '(unknown)';

type RequestDraft = Omit<Request, 'index' | 'itemIndex'>;

type Step =
  | { readonly kind: 'user'; readonly timestampMs: number; readonly item: UserItem }
  | { readonly kind: 'placeholder'; readonly timestampMs: number; readonly placeholder: UserPlaceholder }
  | {
      readonly kind: 'response';
      readonly timestampMs: number;
      readonly request: RequestDraft;
      readonly items: readonly Item[];
      readonly promptChars: number | null;
    }
  | {
      readonly kind: 'event';
      readonly timestampMs: number;
      readonly event: EventDraft;
      readonly summary: SummaryItem | null;
    }
  | { readonly kind: 'side'; readonly timestampMs: number; readonly request: RequestDraft };

type Context = {
  readonly content: ContentMode;
  /** Ids of the items made from store lines: what the model still saw after the last compaction (§7.7). */
  readonly storeItemIds: Set<string>;
  readonly meta: StoreMeta;
  readonly rolloutFile: string | null;
  readonly issues: IngestIssue[];
};

/** Builds the normalized session; see the module comment for which source wins where. */
export function buildFreecodeSession(input: FreecodeSessionInput, options: BuildOptions): Session {
  const meta = input.store?.meta ?? EMPTY_META;
  const ctx: Context = {
    content: options.content,
    storeItemIds: new Set(),
    meta,
    rolloutFile: input.rollout?.file ?? null,
    issues: [...input.issues],
  };

  const storeMessages = input.store === null ? [] : storePath(input.store, ctx);
  const timeline = input.rollout === null ? null : buildTimeline(input.rollout.file, input.rollout.records);
  if (timeline !== null) ctx.issues.push(...timeline.issues);
  const rolloutHasResponses = timeline?.steps.some((step) => step.kind === 'response') ?? false;

  let steps: Step[];
  if (timeline !== null && rolloutHasResponses) {
    steps = stepsFromRollout(timeline.steps, storeMessages, input.store, ctx);
  } else {
    steps = stepsFromStore(storeMessages, ctx);
    // A rollout without responses still has events (failed sends, blocks) worth placing.
    const extra = (timeline?.steps ?? []).flatMap((step): Step[] => {
      if (step.kind === 'event')
        return [{ kind: 'event', timestampMs: step.event.timestampMs ?? 0, event: step.event, summary: null }];
      if (step.kind === 'side_request') return [sideStep(step, ctx)];
      return [];
    });
    steps = mergeByTime(steps, extra);
  }
  if (input.memory !== null) {
    steps = attachSummaries(steps, input.memory.memory.summaries, timeline !== null, ctx);
    steps = fillFromMemory(steps, input.memory.memory, ctx);
  }
  const { items, requests, events } = emit(steps, ctx);

  return {
    id: input.sessionId,
    source: 'freecode',
    title: meta.title,
    project: meta.projectPath ?? (input.store?.projectDir ? projectPathFromDirName(input.store.projectDir) : null),
    files: [...input.files],
    items,
    requests,
    events,
    issues: ctx.issues,
    parentSessionId: meta.parentId,
    totalsOnly: null,
  };
}

/** Notes that items came from store lines (see `Context.storeItemIds`) and returns them. */
function fromStore<T extends Item | readonly Item[]>(ctx: Context, made: T): T {
  for (const item of Array.isArray(made) ? made : [made]) ctx.storeItemIds.add(item.id);
  return made;
}

function storePath(store: StoreSource, ctx: Context): readonly StoreMessage[] {
  const { leafId } = store.meta;
  if (leafId !== null && !store.messages.some((message) => message.id === leafId)) {
    ctx.issues.push({
      file: store.metaFile ?? store.messagesFile ?? '',
      line: 0,
      reason: `meta.json leafId "${leafId}" names no line of messages.jsonl; the last line is taken as the leaf`,
    });
  }
  return activePath(store.messages, leafId);
}

function sideStep(
  step: {
    timestampMs: number;
    agentId: string;
    model: string | null;
    provider: string | null;
    usage: MeasuredUsage | null;
  },
  ctx: Context,
): Step {
  return {
    kind: 'side',
    timestampMs: step.timestampMs,
    request: {
      model: step.model ?? ctx.meta.model ?? UNKNOWN_MODEL,
      provider: step.provider ?? ctx.meta.provider,
      timestampMs: step.timestampMs,
      usage: step.usage,
      agentId: step.agentId,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Rollout as the base

function stepsFromRollout(
  timelineSteps: ReturnType<typeof buildTimeline>['steps'],
  storeMessages: readonly StoreMessage[],
  store: StoreSource | null,
  ctx: Context,
): Step[] {
  const responses = timelineSteps.flatMap((step) => (step.kind === 'response' ? [step.response] : []));
  const storeAssistant = storeMessages.filter((message) => message.role === 'assistant');
  const alignment = alignStore(responses, storeAssistant);
  const firstUnmatched = alignment.unmatched[0];
  if (firstUnmatched !== undefined) {
    const matchedAny = alignment.unmatched.length < storeAssistant.length;
    ctx.issues.push({
      file: store?.messagesFile ?? '',
      line: firstUnmatched.line,
      reason: matchedAny
        ? `${alignment.unmatched.length} assistant lines from here on do not match the rollout log (compared from the end by order, shape and usage); their text is not used`
        : 'the session store shares no assistant line with the rollout log (compared from the end by order, shape and usage); its assistant text is not used',
    });
  }

  const steps: Step[] = timelineSteps.map((step): Step => {
    switch (step.kind) {
      case 'user_placeholder':
        return { kind: 'placeholder', timestampMs: step.placeholder.timestampMs, placeholder: step.placeholder };
      case 'response':
        return responseStep(step.response, alignment.matches.get(step.response), ctx);
      case 'event':
        return { kind: 'event', timestampMs: step.event.timestampMs ?? 0, event: step.event, summary: null };
      case 'side_request':
        return sideStep(step, ctx);
      default: {
        const unreachable: never = step;
        return unreachable;
      }
    }
  });
  const storeUsers = storeMessages
    .filter((message) => message.role === 'user')
    .map((message) => fromStore(ctx, userItemFromStore(message, ctx.content)));
  return placeStoreUsers(steps, storeUsers);
}

/** Items of one rollout response, with the store's lines where it still has them. */
function responseStep(response: RolloutResponse, match: ResponseMatch | undefined, ctx: Context): Step {
  const items: Item[] = [];
  const responseId = response.eventId;
  let thinkingChars = response.thinkingChars;
  const takeThinking = (): number => {
    const chars = thinkingChars;
    thinkingChars = 0;
    return chars;
  };

  if (hasTextLine(response)) {
    const stored = match?.text ?? null;
    if (stored !== null) {
      items.push(
        ...fromStore(
          ctx,
          itemsFromStoreLine(
            stored,
            responseId,
            takeThinking(),
            (part) => ({ callId: `tool-${stored.id}-${part.partIndex}`, failed: false }),
            ctx.content,
          ),
        ),
      );
    } else {
      const text = textItemFromRollout(
        response.eventId,
        response.respondedAtMs,
        response.textChars,
        responseId,
        takeThinking(),
        ctx.content,
      );
      items.push(text);
    }
  }

  const unused = [...response.calls];
  const takeCall = (name: string): RolloutCall | null => {
    const index = unused.findIndex((call) => call.tool === name);
    return index === -1 ? null : (unused.splice(index, 1)[0] ?? null);
  };
  const missing: string[] = [];
  toolCallNamesOf(response).forEach((name, callIndex) => {
    const call = takeCall(name);
    const stored = match?.calls[callIndex] ?? null;
    if (stored !== null) {
      items.push(
        ...fromStore(
          ctx,
          itemsFromStoreLine(
            stored,
            responseId,
            takeThinking(),
            (part) => ({
              callId: call?.callId ?? `tool-${stored.id}-${part.partIndex}`,
              failed: call?.output?.failed ?? false,
            }),
            ctx.content,
          ),
        ),
      );
    } else if (call !== null) {
      items.push(...itemsFromRolloutCall(call, responseId, takeThinking(), ctx.content));
    } else {
      missing.push(name);
    }
  });
  // Calls the log recorded beyond the response's own list were still executed and shown to the model.
  for (const call of unused) items.push(...itemsFromRolloutCall(call, responseId, takeThinking(), ctx.content));
  if (missing.length > 0 && ctx.rolloutFile !== null) {
    ctx.issues.push({
      file: ctx.rolloutFile,
      line: response.line,
      reason: `model.response lists tool calls the log does not record (${missing.join(', ')}); they are left out`,
    });
  }

  return {
    kind: 'response',
    timestampMs: response.timestampMs,
    request: {
      model: response.model ?? ctx.meta.model ?? UNKNOWN_MODEL,
      provider: response.provider ?? ctx.meta.provider,
      timestampMs: response.timestampMs,
      usage: response.usage ?? match?.text?.usage ?? match?.calls.find((m) => m !== null)?.usage ?? null,
      agentId: null,
    },
    items,
    promptChars: response.promptChars,
  };
}

/**
 * Puts the store's user lines into the rollout timeline by time: a user line belongs before the
 * first response whose request was sent at or after it (FreeCode appends the prompt before it
 * sends, §5.2). In a gap that receives store lines, the rollout's placeholders are replaced by them
 * (the store knows text, images and the synthetic flag); other gaps keep their placeholders.
 */
function placeStoreUsers(steps: readonly Step[], users: readonly UserItem[]): Step[] {
  const responseTimes = steps.flatMap((step) => (step.kind === 'response' ? [step.timestampMs] : []));
  const usersByGap = new Map<number, UserItem[]>();
  // Store lines are in time order, so the gap index only moves forward.
  let gapCursor = 0;
  for (const user of users) {
    const ts = user.timestampMs ?? 0;
    while (gapCursor < responseTimes.length && (responseTimes[gapCursor] ?? Infinity) < ts) gapCursor += 1;
    const gap = gapCursor;
    const list = usersByGap.get(gap) ?? [];
    list.push(user);
    usersByGap.set(gap, list);
  }

  const out: Step[] = [];
  let gapSteps: Step[] = emptyObjectArray();
  let gap = 0;
  const flush = (): void => {
    const gapUsers = usersByGap.get(gap);
    if (gapUsers === undefined) {
      out.push(...gapSteps);
    } else {
      const rest = gapSteps.filter((step) => step.kind !== 'placeholder');
      const userSteps: Step[] = gapUsers.map((item) => ({ kind: 'user', timestampMs: item.timestampMs ?? 0, item }));
      out.push(...mergeByTime(rest, userSteps));
    }
    gapSteps = emptyObjectArray();
  };
  for (const step of steps) {
    if (step.kind === 'response') {
      flush();
      out.push(step);
      gap += 1;
    } else {
      gapSteps.push(step);
    }
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Store as the base

/**
 * Groups store lines into responses when there is no rollout to say where responses begin
 * (engine.md §14): with usage in the file, a response is a usage-bearing line plus the assistant
 * lines after it up to the next usage-bearing or user line. Without any usage (stores before
 * 2026-08-05), a text line begins a response and one tool line may join it: that era issued one
 * tool call per response (engine.md §9.2, RC2), so a second tool line is a new response.
 */
function stepsFromStore(messages: readonly StoreMessage[], ctx: Context): Step[] {
  const hasUsage = messages.some((message) => message.usage !== null);
  const groups: (StoreMessage | StoreMessage[])[] = [];
  let current: StoreMessage[] | null = null;
  for (const message of messages) {
    if (message.role === 'user') {
      groups.push(message);
      current = null;
      continue;
    }
    const hasTool = message.parts.some((part) => part.kind === 'tool');
    const hasText = message.parts.some((part) => part.kind === 'text');
    const joins =
      current !== null &&
      (hasUsage
        ? message.usage === null
        : hasTool && !hasText && current.every((m) => !m.parts.some((part) => part.kind === 'tool')));
    if (joins && current !== null) {
      current.push(message);
    } else {
      current = [message];
      groups.push(current);
    }
  }

  return groups.map((group): Step => {
    if (!Array.isArray(group))
      return {
        kind: 'user',
        timestampMs: group.timestampMs,
        item: fromStore(ctx, userItemFromStore(group, ctx.content)),
      };
    const first = group[0];
    const responseId = first?.id ?? '';
    const items = group.flatMap((message) =>
      fromStore(
        ctx,
        itemsFromStoreLine(
          message,
          responseId,
          0,
          (part) => ({ callId: `tool-${message.id}-${part.partIndex}`, failed: false }),
          ctx.content,
        ),
      ),
    );
    const timestampMs = first?.timestampMs ?? 0;
    return {
      kind: 'response',
      timestampMs,
      request: {
        model: ctx.meta.model ?? UNKNOWN_MODEL,
        provider: ctx.meta.provider,
        timestampMs,
        usage: first?.usage ?? null,
        agentId: null,
      },
      items,
      promptChars: null,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// memory.json

/**
 * Inserts `extra` steps into `base` by time: each goes before the first base step that is
 * strictly later (so at equal times base steps come first). Both lists keep their own order.
 */
function mergeByTime(base: readonly Step[], extra: readonly Step[]): Step[] {
  const out: Step[] = [];
  let e = 0;
  for (const step of base) {
    while (e < extra.length) {
      const next = extra[e];
      if (next === undefined || next.timestampMs >= step.timestampMs) break;
      out.push(next);
      e += 1;
    }
    out.push(step);
  }
  while (e < extra.length) {
    const next = extra[e];
    if (next !== undefined) out.push(next);
    e += 1;
  }
  return out;
}

function summaryItem(summary: MemorySummary, content: ContentMode): SummaryItem {
  return {
    kind: 'summary',
    id: summary.id,
    timestampMs: summary.createdAtMs,
    text: content === 'text' ? summary.content : null,
    chars: summary.content.length,
    imageParts: 0,
    imageChars: 0,
  };
}

/**
 * Gives each recorded compaction its summary: the latest summary created at or before the event
 * (the summary is saved before `compact.occurred` is written, §5.3). Summaries no event claims were
 * made by a compaction that writes no rollout event, i.e. the manual `/compact` (§5.3), so they
 * become compactions of trigger `manual`; without a rollout the trigger is `unknown`.
 */
function attachSummaries(
  steps: readonly Step[],
  summaries: readonly MemorySummary[],
  hasRollout: boolean,
  ctx: Context,
): Step[] {
  const sorted = [...summaries].sort((a, b) => a.createdAtMs - b.createdAtMs);
  const orphans: MemorySummary[] = [];
  let next = 0;
  const out = mapPacked(steps, (step): Step => {
    if (step.kind !== 'event' || step.event.kind !== 'compaction') return step;
    let claimed = -1;
    for (let i = next; i < sorted.length && (sorted[i]?.createdAtMs ?? Infinity) <= step.timestampMs; i += 1)
      claimed = i;
    if (claimed === -1) return step;
    orphans.push(...sorted.slice(next, claimed));
    const summary = sorted[claimed];
    next = claimed + 1;
    if (summary === undefined) return step;
    // Written out, as every event step is made (one shape for the steps' readers).
    return {
      kind: 'event',
      timestampMs: step.timestampMs,
      event: { ...step.event, summaryItemId: summary.id },
      summary: summaryItem(summary, ctx.content),
    };
  });
  orphans.push(...sorted.slice(next));
  const manual: Step[] = orphans.map((summary) => ({
    kind: 'event',
    timestampMs: summary.createdAtMs,
    event: {
      kind: 'compaction',
      timestampMs: summary.createdAtMs,
      trigger: hasRollout ? 'manual' : 'unknown',
      tokensBefore: null,
      tokensAfter: null,
      tokenUnit: 'estimate',
      summaryItemId: summary.id,
    },
    summary: summaryItem(summary, ctx.content),
  }));
  return mergeByTime(out, manual);
}

/**
 * The event of a draft at its place in the session: the draft's fields in their order, then
 * `itemIndex` and `requestIndex` (the keys a spread of the draft followed by them gives). Written
 * out per kind, not as `{ ...draft, itemIndex, requestIndex }`: in V8 a literal that adds keys after
 * a spread takes a slow path, ≈ 1 µs per added key (src/README.md).
 */
function placedEvent(draft: EventDraft, itemIndex: number, requestIndex: number): HarnessEvent {
  switch (draft.kind) {
    case 'compaction':
      return {
        kind: draft.kind,
        timestampMs: draft.timestampMs,
        trigger: draft.trigger,
        tokensBefore: draft.tokensBefore,
        tokensAfter: draft.tokensAfter,
        tokenUnit: draft.tokenUnit,
        summaryItemId: draft.summaryItemId,
        itemIndex,
        requestIndex,
      };
    case 'overflow':
      return {
        kind: draft.kind,
        timestampMs: draft.timestampMs,
        tokensBefore: draft.tokensBefore,
        tokenUnit: draft.tokenUnit,
        itemIndex,
        requestIndex,
      };
    case 'hook_block':
      return {
        kind: draft.kind,
        timestampMs: draft.timestampMs,
        hookName: draft.hookName,
        reason: draft.reason,
        itemIndex,
        requestIndex,
      };
    case 'model_error':
      return {
        kind: draft.kind,
        timestampMs: draft.timestampMs,
        errorKind: draft.errorKind,
        message: draft.message,
        itemIndex,
        requestIndex,
      };
    case 'subagent':
      return {
        kind: draft.kind,
        timestampMs: draft.timestampMs,
        phase: draft.phase,
        subagentId: draft.subagentId,
        itemIndex,
        requestIndex,
      };
    default: {
      const unreachable: never = draft;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Gives placeholders of prompts and steers the text memory.json recorded for them (§4.3: the prompt
 * once per run, images dropped; steers too; never auto-pokes): the first unused memory user entry
 * written after the previous response's request and no later than the next one's.
 */
function fillFromMemory(steps: readonly Step[], memory: MemoryFile, ctx: Context): Step[] {
  const entries = [...memory.userMessages].sort((a, b) => a.timestampMs - b.timestampMs);
  const nextResponseMs: number[] = new Array<number>(steps.length);
  let upcoming = Infinity;
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    nextResponseMs[i] = upcoming;
    const step = steps[i];
    if (step?.kind === 'response') upcoming = step.timestampMs;
  }
  let next = 0;
  let previousResponseMs = -Infinity;
  return steps.map((step, index): Step => {
    if (step.kind === 'response') previousResponseMs = step.timestampMs;
    if (step.kind !== 'placeholder' || step.placeholder.origin === 'poke') return step;
    const untilMs = nextResponseMs[index] ?? Infinity;
    while (next < entries.length && (entries[next]?.timestampMs ?? Infinity) <= previousResponseMs) next += 1;
    const entry = entries[next];
    if (entry === undefined || entry.timestampMs > untilMs) return step;
    next += 1;
    const { placeholder } = step;
    const item = userItem(
      placeholderItemId(placeholder),
      entry.timestampMs,
      entry.content,
      entry.content.length,
      syntheticOf(placeholder),
      ctx.content,
    );
    return { kind: 'user', timestampMs: entry.timestampMs, item };
  });
}

function placeholderItemId(placeholder: UserPlaceholder): string {
  // A steer's event carries the store id of its message; prompts and pokes have none on disk.
  return placeholder.origin === 'steer'
    ? placeholder.eventId
    : `${placeholder.origin === 'poke' ? 'poke' : 'user'}-${placeholder.eventId}`;
}

function syntheticOf(placeholder: UserPlaceholder): string | null {
  switch (placeholder.origin) {
    case 'run_start':
      return null;
    case 'poke':
      return 'auto_poke';
    case 'steer':
      return 'steer';
    default: {
      const unreachable: never = placeholder.origin;
      return unreachable;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Emission and sizing of prompts known only from the rollout

type Pending = { readonly itemIndex: number; readonly placeholder: UserPlaceholder };

function emit(steps: readonly Step[], ctx: Context): { items: Item[]; requests: Request[]; events: HarnessEvent[] } {
  const items: Item[] = [];
  const requests: Request[] = [];
  const events: HarnessEvent[] = [];
  const promptChars = new Map<number, number | null>();
  const pending: Pending[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'user':
        items.push(step.item);
        break;
      case 'placeholder': {
        const { placeholder } = step;
        pending.push({ itemIndex: items.length, placeholder });
        items.push(
          userItem(
            placeholderItemId(placeholder),
            placeholder.timestampMs,
            null,
            0,
            syntheticOf(placeholder),
            ctx.content,
          ),
        );
        break;
      }
      case 'response':
        promptChars.set(requests.length, step.promptChars);
        requests.push({ index: requests.length, itemIndex: items.length, ...step.request });
        items.push(...step.items);
        break;
      case 'event':
        events.push(placedEvent(step.event, items.length, requests.length));
        if (step.summary !== null) items.push(step.summary);
        break;
      case 'side':
        requests.push({ index: requests.length, itemIndex: items.length, ...step.request });
        break;
      default: {
        const unreachable: never = step;
        throw new Error(`unhandled step ${JSON.stringify(unreachable)}`);
      }
    }
  }
  sizeUnknownPrompts(items, requests, events, promptChars, pending, ctx);
  return { items, requests, events };
}

/**
 * Sizes user messages known only from the rollout (no text in the store or memory.json) from
 * `model.request.promptChars` (§6.5). Let P be the last request of the main agent before the
 * message and Q the first `model.request` sent after it (sent or failed): when nothing was removed
 * in between (no compaction), Q.promptChars − P.promptChars is what was appended after P was sent
 * (P's response and results, then the new messages), so the unknown messages get that growth minus
 * what the known items added, in equal shares. It is an estimate: the ephemeral tail and pruning
 * replacements also move promptChars. A first prompt has no earlier request: its baseline is the
 * system part of promptChars, estimated after the last compaction (`estimateSystemChars`). When it
 * cannot be done (no baseline, a compaction in between, a missing promptChars, a negative residue)
 * the message counts 0 characters and is reported as an issue.
 */
function sizeUnknownPrompts(
  items: Item[],
  requests: readonly Request[],
  events: readonly HarnessEvent[],
  promptChars: ReadonlyMap<number, number | null>,
  pending: readonly Pending[],
  ctx: Context,
): void {
  if (pending.length === 0) return;
  const main = requests.filter((request) => request.agentId === null);
  const unknown = new Set(pending.map((p) => p.itemIndex));
  const groups = new Map<string, { previous: Request | undefined; members: Pending[] }>();
  // Pending messages come in item order, so the last main request before each only moves forward.
  let cursor = 0;
  for (const p of pending) {
    while (cursor < main.length && (main[cursor]?.itemIndex ?? Infinity) <= p.itemIndex) cursor += 1;
    const previous = main[cursor - 1];
    const key = `${previous?.index ?? -1}:${p.placeholder.nextRequest?.eventId ?? `none-${p.itemIndex}`}`;
    const group = groups.get(key) ?? { previous, members: [] };
    group.members.push(p);
    groups.set(key, group);
  }
  let systemChars: number | null | undefined;
  for (const { previous, members } of groups.values()) {
    let baseline: Baseline | null;
    if (previous !== undefined) {
      baseline = {
        promptChars: promptChars.get(previous.index) ?? null,
        fromItemIndex: previous.itemIndex,
        afterRequestIndex: previous.index,
      };
    } else {
      systemChars ??= estimateSystemChars(items, requests, events, promptChars, ctx.storeItemIds);
      baseline = systemChars === null ? null : { promptChars: systemChars, fromItemIndex: 0, afterRequestIndex: -1 };
    }
    const residue = baseline === null ? null : growthResidue(items, events, unknown, baseline, members);
    members.forEach((member, k) => {
      const item = items[member.itemIndex];
      if (item === undefined || item.kind !== 'user') return;
      if (residue === null) {
        ctx.issues.push({
          file: ctx.rolloutFile ?? '',
          line: member.placeholder.line,
          reason: `${describeOrigin(member.placeholder)} here is in neither the session store nor memory.json, and its size cannot be derived from promptChars; counted as 0 characters`,
        });
        return;
      }
      const share = Math.floor(residue / members.length) + (k === members.length - 1 ? residue % members.length : 0);
      // Built whole rather than spread from `item`: every user item then has one object shape.
      items[member.itemIndex] = {
        kind: 'user',
        id: item.id,
        timestampMs: item.timestampMs,
        text: item.text,
        chars: share,
        imageParts: item.imageParts,
        imageChars: item.imageChars,
        synthetic: item.synthetic,
      };
    });
  }
}

function describeOrigin(placeholder: UserPlaceholder): string {
  switch (placeholder.origin) {
    case 'run_start':
      return 'the user prompt sent';
    case 'poke':
      return 'the auto-poke message';
    case 'steer':
      return 'the steer message';
    default: {
      const unreachable: never = placeholder.origin;
      return unreachable;
    }
  }
}

/** What the prompt held before the unknown messages: a request's promptChars and the items after it, or the system part alone. */
type Baseline = {
  readonly promptChars: number | null;
  readonly fromItemIndex: number;
  readonly afterRequestIndex: number;
};

function growthResidue(
  items: readonly Item[],
  events: readonly HarnessEvent[],
  unknown: ReadonlySet<number>,
  baseline: Baseline,
  members: readonly Pending[],
): number | null {
  const last = members[members.length - 1];
  const before = baseline.promptChars;
  const after = last?.placeholder.nextRequest?.promptChars;
  if (last === undefined || before === null || after === null || after === undefined) return null;
  const compacted = events.some(
    (event) =>
      event.kind === 'compaction' &&
      event.requestIndex > baseline.afterRequestIndex &&
      event.itemIndex <= last.itemIndex,
  );
  if (compacted) return null;
  let known = 0;
  for (let i = baseline.fromItemIndex; i <= last.itemIndex; i += 1) {
    const item = items[i];
    if (item !== undefined && !unknown.has(i)) known += promptCharsOf(item);
  }
  const residue = after - before - known;
  return residue >= 0 ? residue : null;
}

/** FreeCode's session block after a compaction (engine.md §5.8): a system block holding the latest summary. */
const SUMMARY_BLOCK_PREFIX = 'Compacted session summary:\n';

/**
 * The system part of promptChars (system prompt, tools, dynamic context), for sizing a first prompt
 * that neither the store nor memory.json kept. After the last compaction the store holds exactly
 * what the model saw (§7.7), so the first main request Q after it satisfies
 * Q.promptChars = system + summary block + the store's items before Q; solve for system. Null when
 * there is no such request or compaction summary.
 */
function estimateSystemChars(
  items: readonly Item[],
  requests: readonly Request[],
  events: readonly HarnessEvent[],
  promptChars: ReadonlyMap<number, number | null>,
  storeItemIds: ReadonlySet<string>,
): number | null {
  const compaction = events.findLast((event) => event.kind === 'compaction');
  if (compaction === undefined || compaction.kind !== 'compaction' || compaction.summaryItemId === null) return null;
  const summary = items.find((item) => item.id === compaction.summaryItemId);
  const q = requests.find(
    (request) =>
      request.agentId === null &&
      request.index >= compaction.requestIndex &&
      (promptChars.get(request.index) ?? null) !== null,
  );
  const qChars = q === undefined ? null : (promptChars.get(q.index) ?? null);
  if (summary === undefined || q === undefined || qChars === null) return null;
  let visible = 0;
  for (let i = 0; i < q.itemIndex; i += 1) {
    const item = items[i];
    if (item !== undefined && item.kind !== 'summary' && storeItemIds.has(item.id)) visible += promptCharsOf(item);
  }
  const system = qChars - SUMMARY_BLOCK_PREFIX.length - summary.chars - visible;
  return system >= 0 ? system : null;
}
