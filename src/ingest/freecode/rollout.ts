/**
 * One line of FreeCode's rollout log (`rollout/sessions/<id>/events.jsonl`, engine.md §6) → a
 * value. All 30 event types of §6.3 are known; the ones that cannot change items, requests or
 * harness events are ignored (most without `JSON.parse`: `type` is written first, §6.1), and an
 * unknown type is an ingest issue. Schemas cover only the fields read here: any other field is
 * allowed and left out of the parsed value (`z.object`; keeping them all, as `z.looseObject` did,
 * cost ≈ 5 % of `report`'s CPU on the FreeCode benchmark corpus, bench/README.md sim13).
 */
import { z } from 'zod';
import type { MeasuredUsage } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { describeSchemaError, parseJsonLine } from '../json-line.js';
import type { Line } from '../lines.js';
import { isSkippableWholeLine, peekLeadingString } from '../peek-type.js';
import { normalizeUsage } from '../usage.js';
import { checkJsonDepth, tooDeepReason } from '../json-text.js';
import { MAX_TIMESTAMP_MS } from '../json-value.js';

type RecordBase = { readonly line: number; readonly eventId: string; readonly timestampMs: number };

/** The rollout events that matter to a session, in the adapter's own vocabulary. */
export type RolloutRecord = RecordBase &
  (
    | {
        readonly kind: 'model_request';
        readonly turnId: string;
        readonly provider: string | null;
        readonly model: string | null;
        readonly promptChars: number | null;
      }
    | {
        readonly kind: 'model_response';
        readonly turnId: string | null;
        readonly provider: string | null;
        /** The requested model; `(provider default)` is replaced by `echoedModel` when present (§6.5). */
        readonly model: string | null;
        readonly usage: MeasuredUsage | null;
        /** Names of the response's tool calls, in call order; null when the line does not say. */
        readonly toolCallNames: readonly string[] | null;
        readonly textChars: number;
        readonly thinkingChars: number;
      }
    | {
        readonly kind: 'model_error';
        readonly turnId: string | null;
        readonly provider: string | null;
        readonly model: string | null;
        readonly errorKind: string;
        readonly message: string;
      }
    | {
        readonly kind: 'function_call';
        readonly tool: string;
        /** The line's `args` (`{}` without them), written out where an item shows them (`rolloutArgsJson`). */
        readonly args: RolloutArgs;
        readonly callId: string | null;
        /** A codemode inner call (`parentCallId`): made by code, not by the model, so not a model tool call. */
        readonly nested: boolean;
      }
    | {
        readonly kind: 'function_output';
        readonly tool: string;
        /** The full output (§6.3); null in `sizes` mode. */
        readonly output: string | null;
        readonly outputChars: number;
        readonly failed: boolean | null;
        readonly callId: string | null;
      }
    | {
        readonly kind: 'function_denied';
        readonly tool: string;
        /** As `function_call`'s. */
        readonly args: RolloutArgs;
        readonly reason: string;
        readonly callId: string | null;
      }
    | { readonly kind: 'compact_occurred'; readonly beforeTokens: number | null; readonly afterTokens: number | null }
    | { readonly kind: 'context_overflow'; readonly beforeTokens: number | null }
    | { readonly kind: 'hook_blocked'; readonly hookName: string; readonly reason: string }
    | { readonly kind: 'subagent'; readonly phase: 'start' | 'stop'; readonly subagentId: string }
    | { readonly kind: 'poke_triggered' }
    | { readonly kind: 'message_steered'; readonly messageId: string }
    | {
        /** Billed traffic outside the conversation (memory jobs, redirect supervisor, cache warming). */
        readonly kind: 'side_request';
        readonly agentId: string;
        readonly provider: string | null;
        readonly model: string | null;
        /** Null when the line's usage is invalid (the request happened; it is not priced). */
        readonly usage: MeasuredUsage | null;
      }
  );

export type RolloutRecordKind = RolloutRecord['kind'];

export type RolloutLineResult =
  | { readonly kind: 'record'; readonly record: RolloutRecord; readonly problem: string | null }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Event types of §6.3 that never change what a session's items, requests or events are. */
export const IGNORED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'turn.started', // request boundaries come from model.request turnIds (its position moved between versions, §6.4)
  'turn.aborted',
  'skill.invoked',
  'hook.triggered',
  'parse.error',
  'model.first_token',
  'memory.exposure',
  'redirect.skipped',
  'poke.skipped',
  'todo.signal',
  'session.navigate', // the store's parentId / leafId carry the branch (§7.6)
  'checkpoint.captured',
  'checkpoint.skipped',
  'checkpoint.restored',
]);

/** Event types of §6.3 read by this adapter. */
export const HANDLED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'function.call',
  'function.output',
  'function.denied',
  'compact.occurred',
  'subagent.start',
  'subagent.stop',
  'hook.blocked',
  'context.overflow',
  'model.request',
  'model.response',
  'model.error',
  'memory.auxiliary',
  'redirect.triggered',
  'poke.triggered',
  'message.steered',
  'cache.warm',
]);

const text = z.string();
const optionalText = z.string().nullish();
const optionalCount = z.number().int().nonnegative().nullish();

const TypeSchema = z.object({ type: z.string() });
const BaseSchema = z.object({
  id: z.string(),
  timestamp: z.number().min(-MAX_TIMESTAMP_MS).max(MAX_TIMESTAMP_MS).transform(Math.trunc),
});

const TokenFields = {
  inputTokens: z.unknown().optional(),
  outputTokens: z.unknown().optional(),
  cacheReadTokens: z.unknown().optional(),
  cacheWriteTokens: z.unknown().optional(),
  reasoningTokens: z.unknown().optional(),
};

const Schemas = {
  'model.request': z.object({
    turnId: text,
    provider: optionalText,
    model: optionalText,
    promptChars: optionalCount,
  }),
  'model.response': z.object({
    turnId: optionalText,
    provider: optionalText,
    model: optionalText,
    echoedModel: optionalText,
    ...TokenFields,
    toolCalls: z.array(z.string()).nullish(),
    textChars: z.number().int().nonnegative(),
    thinkingChars: optionalCount,
  }),
  'model.error': z.object({
    turnId: optionalText,
    provider: optionalText,
    model: optionalText,
    kind: optionalText,
    error: optionalText,
  }),
  'function.call': z.object({
    tool: text,
    args: z.unknown().optional(),
    callId: optionalText,
    parentCallId: optionalText,
  }),
  'function.output': z.object({
    tool: text,
    output: optionalText,
    failed: z.boolean().nullish(),
    callId: optionalText,
  }),
  'function.denied': z.object({
    tool: text,
    args: z.unknown().optional(),
    reason: optionalText,
    callId: optionalText,
  }),
  'compact.occurred': z.object({ beforeTokens: optionalCount, afterTokens: optionalCount }),
  'context.overflow': z.object({ beforeTokens: optionalCount }),
  'hook.blocked': z.object({ hookName: text, reason: optionalText }),
  subagent: z.object({ subagentId: text }),
  'message.steered': z.object({ messageId: text }),
  'memory.auxiliary': z.object({ purpose: text, provider: optionalText, model: optionalText, ...TokenFields }),
  'redirect.triggered': z.object({ inputTokens: z.unknown().optional(), outputTokens: z.unknown().optional() }),
  'cache.warm': z.object({ provider: optionalText, model: optionalText, ...TokenFields }),
} as const;

const PROVIDER_DEFAULT_MODEL = '(provider default)';

type Parsed<K extends keyof typeof Schemas> = z.infer<(typeof Schemas)[K]>;

/**
 * A tool call's arguments as its rollout line gave them, checked for depth as the line is read (a
 * line too deep to write out is the same ingest issue in every mode); null in `usage` mode, whose
 * items show no arguments (`argumentsText`). Written out only where an item shows them
 * (`rolloutArgsJson`): a call the session store also holds is shown from the store's line, so the
 * rollout's copy of most arguments is never serialized.
 */
export type RolloutArgs = { readonly value: unknown } | null;

/** The arguments as `JSON.stringify` writes them (`ToolCall.argsStringified`), `''` in `usage` mode. */
export function rolloutArgsJson(args: RolloutArgs): string {
  return args === null ? '' : JSON.stringify(args.value);
}

function rolloutArgs(args: unknown, content: ContentMode): RolloutArgs {
  // A call recorded without args sent `{}`.
  const value = args ?? {};
  checkJsonDepth(value);
  return content === 'usage' ? null : { value };
}

function parseWith<K extends keyof typeof Schemas>(
  key: K,
  type: string,
  value: unknown,
): { readonly ok: true; readonly data: Parsed<K> } | { readonly ok: false; readonly reason: string } {
  const result = Schemas[key].safeParse(value);
  // The schema is the boundary: after it, the fields it names are trusted.
  return result.success
    ? { ok: true, data: result.data as Parsed<K> }
    : { ok: false, reason: describeSchemaError(type, result.error) };
}

/** Parses one rollout line; see the module comment. Never throws for bad content. */
export function parseRolloutLine(line: Line, content: ContentMode = 'text'): RolloutLineResult {
  try {
    return parseRolloutLineUnguarded(line, content);
  } catch (error) {
    const reason = tooDeepReason(error);
    if (reason === null) throw error;
    return { kind: 'invalid', reason };
  }
}

function parseRolloutLineUnguarded(line: Line, content: ContentMode): RolloutLineResult {
  const peeked = peekLeadingString(line.text, 'type');
  if (peeked !== null && IGNORED_EVENT_TYPES.has(peeked) && isSkippableWholeLine(line.text, 'type')) {
    return { kind: 'ignored' };
  }
  const json = parseJsonLine(line);
  if (json.kind === 'blank') return { kind: 'ignored' };
  if (json.kind === 'invalid') return { kind: 'invalid', reason: json.reason };
  const typed = TypeSchema.safeParse(json.value);
  if (!typed.success) return { kind: 'invalid', reason: describeSchemaError('rollout event', typed.error) };
  const { type } = typed.data;
  if (IGNORED_EVENT_TYPES.has(type)) return { kind: 'ignored' };
  if (!HANDLED_EVENT_TYPES.has(type)) return { kind: 'invalid', reason: `unknown event type "${type}"` };
  const base = BaseSchema.safeParse(json.value);
  if (!base.success) return { kind: 'invalid', reason: describeSchemaError(type, base.error) };
  const common: RecordBase = { line: line.number, eventId: base.data.id, timestampMs: base.data.timestamp };
  return parseHandled(type, json.value, common, content);
}

function record(record: RolloutRecord, problem: string | null = null): RolloutLineResult {
  return { kind: 'record', record, problem };
}

function parseHandled(type: string, value: unknown, common: RecordBase, content: ContentMode): RolloutLineResult {
  // Each record lists the envelope's fields: on Node 20 (V8 11) every property written after a
  // spread in an object literal costs ~1 µs (`{ ...common, kind, … }` was ~12 µs a line).
  const { line, eventId, timestampMs } = common;
  switch (type) {
    case 'model.request': {
      const p = parseWith('model.request', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const { turnId, provider, model, promptChars } = p.data;
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'model_request',
        turnId,
        provider: provider ?? null,
        model: model ?? null,
        promptChars: promptChars ?? null,
      });
    }
    case 'model.response': {
      const p = parseWith('model.response', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      const reading = normalizeUsage(d);
      const model =
        d.model === PROVIDER_DEFAULT_MODEL && d.echoedModel ? d.echoedModel : (d.model ?? d.echoedModel ?? null);
      return record(
        {
          line,
          eventId,
          timestampMs,
          kind: 'model_response',
          turnId: d.turnId ?? null,
          provider: d.provider ?? null,
          model,
          usage: reading.usage,
          toolCallNames: d.toolCalls ?? null,
          textChars: d.textChars,
          thinkingChars: d.thinkingChars ?? 0,
        },
        reading.problem,
      );
    }
    case 'model.error': {
      const p = parseWith('model.error', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'model_error',
        turnId: d.turnId ?? null,
        provider: d.provider ?? null,
        model: d.model ?? null,
        errorKind: d.kind ?? 'unknown',
        message: d.error ?? '',
      });
    }
    case 'function.call': {
      const p = parseWith('function.call', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'function_call',
        tool: d.tool,
        args: rolloutArgs(d.args, content),
        callId: d.callId ?? null,
        nested: Boolean(d.parentCallId),
      });
    }
    case 'function.output': {
      const p = parseWith('function.output', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      const output = d.output ?? '';
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'function_output',
        tool: d.tool,
        output: kept(output, content),
        outputChars: output.length,
        failed: d.failed ?? null,
        callId: d.callId ?? null,
      });
    }
    case 'function.denied': {
      const p = parseWith('function.denied', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'function_denied',
        tool: d.tool,
        args: rolloutArgs(d.args, content),
        reason: d.reason ?? '',
        callId: d.callId ?? null,
      });
    }
    case 'compact.occurred': {
      const p = parseWith('compact.occurred', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'compact_occurred',
        beforeTokens: p.data.beforeTokens ?? null,
        afterTokens: p.data.afterTokens ?? null,
      });
    }
    case 'context.overflow': {
      const p = parseWith('context.overflow', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'context_overflow',
        beforeTokens: p.data.beforeTokens ?? null,
      });
    }
    case 'hook.blocked': {
      const p = parseWith('hook.blocked', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'hook_blocked',
        hookName: p.data.hookName,
        reason: p.data.reason ?? '',
      });
    }
    case 'subagent.start':
    case 'subagent.stop': {
      const p = parseWith('subagent', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return record({
        line,
        eventId,
        timestampMs,
        kind: 'subagent',
        phase: type === 'subagent.start' ? 'start' : 'stop',
        subagentId: p.data.subagentId,
      });
    }
    case 'poke.triggered':
      return record({ line, eventId, timestampMs, kind: 'poke_triggered' });
    case 'message.steered': {
      const p = parseWith('message.steered', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return record({ line, eventId, timestampMs, kind: 'message_steered', messageId: p.data.messageId });
    }
    case 'memory.auxiliary': {
      const p = parseWith('memory.auxiliary', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return sideRequest(common, `memory:${p.data.purpose}`, p.data.provider ?? null, p.data.model ?? null, p.data);
    }
    case 'redirect.triggered': {
      const p = parseWith('redirect.triggered', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      const d = p.data;
      const usage = {
        inputTokens: d.inputTokens,
        outputTokens: d.outputTokens,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        reasoningTokens: undefined,
      };
      return sideRequest(common, 'redirect', null, null, usage);
    }
    case 'cache.warm': {
      const p = parseWith('cache.warm', type, value);
      if (!p.ok) return { kind: 'invalid', reason: p.reason };
      return sideRequest(common, 'cache-warm', p.data.provider ?? null, p.data.model ?? null, p.data);
    }
    default:
      // HANDLED_EVENT_TYPES and this switch list the same types; a mismatch is a bug, not bad input.
      throw new Error(`rollout type "${type}" is marked handled but has no parser`);
  }
}

function sideRequest(
  common: RecordBase,
  agentId: string,
  provider: string | null,
  model: string | null,
  tokens: Parameters<typeof normalizeUsage>[0],
): RolloutLineResult {
  const reading = normalizeUsage(tokens);
  // A side call that reports no tokens (a failed memory job, a redirect without usage) bills nothing we can see.
  if (reading.usage === null && reading.invalid !== true) {
    return reading.problem === null ? { kind: 'ignored' } : { kind: 'invalid', reason: reading.problem };
  }
  const { line, eventId, timestampMs } = common;
  return record(
    { line, eventId, timestampMs, kind: 'side_request', agentId, provider, model, usage: reading.usage },
    reading.problem,
  );
}
