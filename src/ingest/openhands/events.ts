/**
 * OpenHands events → items and requests (formats.md §4, pure). A request is one LiteLLM response:
 * the first event carrying `tool_call_metadata.model_response` with a new `id` opens it (the same
 * response repeats on its action, its observation and once per tool call, §4.2); its usage is
 * the instance's `metrics.token_usages` entry of that `response_id` when there is one, else the
 * response's own `usage` (`prompt_tokens` includes cache reads and writes). Per-call usages no
 * event names are requests placed after the last item.
 */
import type { IngestIssue, Item, MeasuredUsage, Request, ToolCall } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { asArray, asNumber, asObject, asString, type JsonObject, timestampMsOf } from '../json-value.js';
import { jsonText, tooDeepReason } from '../json-text.js';
import { normalizeUsage } from '../usage.js';

export type OpenhandsInstance = {
  readonly sessionId: string;
  readonly file: string;
  /** The line of an `output.jsonl` instance; 0 for a trajectory file. */
  readonly line: number;
  readonly events: readonly unknown[];
  /** `metrics.token_usages` of an evaluation instance; empty for a saved trajectory. */
  readonly tokenUsages: readonly unknown[];
  readonly defaultModel: string | null;
};

export type OpenhandsParts = {
  readonly items: Item[];
  readonly requests: Request[];
  readonly issues: IngestIssue[];
};

/** Events that never reach the model's prompt (UI state changes and empty observations). */
const SILENT = new Set(['change_agent_state', 'agent_state_changed', 'null', 'recall']);

function usageOf(usage: JsonObject): { usage: MeasuredUsage | null; problem: string | null } {
  const details = asObject(usage['prompt_tokens_details']);
  return normalizeUsage({
    inputTokens: usage['prompt_tokens'],
    outputTokens: usage['completion_tokens'],
    cacheReadTokens: usage['cache_read_input_tokens'] ?? usage['cache_read_tokens'] ?? details?.['cached_tokens'],
    cacheWriteTokens: usage['cache_creation_input_tokens'] ?? usage['cache_write_tokens'],
    reasoningTokens: asObject(usage['completion_tokens_details'])?.['reasoning_tokens'],
  });
}

function textItem(
  kind: 'user' | 'system',
  id: string,
  timestampMs: number | null,
  text: string,
  content: ContentMode,
  synthetic: string | null,
): Item {
  // Written out, not `{ ...base, kind }`: each property added after a spread costs ~1 µs on Node 20.
  const shown = kept(text, content);
  const chars = text.length;
  return kind === 'user'
    ? { id, timestampMs, text: shown, chars, imageParts: 0, imageChars: 0, kind: 'user', synthetic }
    : { id, timestampMs, text: shown, chars, imageParts: 0, imageChars: 0, kind: 'system' };
}

/**
 * The arguments the model sent for `toolCallId`, from the response's choices (the log's text); the
 * event's args otherwise, written with `JSON.stringify` (`ToolCall.argsStringified`).
 */
function argsJsonOf(
  response: JsonObject | undefined,
  toolCallId: string,
  event: JsonObject,
): { readonly argsJson: string; readonly stringified: boolean } {
  const message = asObject(asObject(asArray(response?.['choices'])?.[0])?.['message']);
  for (const call of asArray(message?.['tool_calls']) ?? []) {
    const object = asObject(call);
    if (asString(object?.['id']) === toolCallId) {
      const args = asObject(object?.['function'])?.['arguments'];
      if (typeof args === 'string') return { argsJson: args, stringified: false };
    }
  }
  return { argsJson: jsonText(event['args'] ?? {}), stringified: true };
}

/** Builds the items and requests of one instance or trajectory; never throws. */
export function openhandsParts(instance: OpenhandsInstance, content: ContentMode): OpenhandsParts {
  const items: Item[] = [];
  const requests: Request[] = [];
  const issues: IngestIssue[] = [];
  const perCall = new Map<string, JsonObject>();
  for (const entry of instance.tokenUsages) {
    const object = asObject(entry);
    const id = asString(object?.['response_id']);
    if (object !== undefined && id !== undefined && !perCall.has(id)) perCall.set(id, object);
  }
  const seenResponses = new Set<string>();
  const addRequest = (
    id: string,
    model: string | null,
    timestampMs: number | null,
    raw: JsonObject | undefined,
  ): void => {
    const reading = raw === undefined ? { usage: null, problem: `response ${id} has no usage` } : usageOf(raw);
    if (reading.problem !== null)
      issues.push({ file: instance.file, line: instance.line, reason: reading.problem, effect: 'repaired' });
    requests.push({
      index: requests.length,
      itemIndex: items.length,
      model: model ?? instance.defaultModel ?? 'unknown',
      provider: null,
      timestampMs,
      usage: reading.usage,
      agentId: null,
    });
  };
  for (const [position, value] of instance.events.entries()) {
    const event = asObject(value);
    if (event === undefined) {
      issues.push({ file: instance.file, line: instance.line, reason: `event ${position} is not an object; ignored` });
      continue;
    }
    const id = `${instance.sessionId}:${String(asNumber(event['id']) ?? position)}`;
    const timestampMs = timestampMsOf(event['timestamp']);
    const action = asString(event['action']);
    const observation = asString(event['observation']);
    const metadata = asObject(event['tool_call_metadata']);
    const response = asObject(metadata?.['model_response']);
    const responseId = asString(response?.['id']);
    let newResponse = false;
    if (responseId !== undefined && !seenResponses.has(responseId)) {
      seenResponses.add(responseId);
      newResponse = true;
      const perCallUsage = perCall.get(responseId);
      addRequest(
        responseId,
        asString(perCallUsage?.['model']) ?? asString(response?.['model']) ?? null,
        timestampMs,
        perCallUsage ?? asObject(response?.['usage']),
      );
    }
    if (SILENT.has(action ?? observation ?? '')) continue;
    const source = asString(event['source']);
    const message = asString(event['message']) ?? '';
    if (action !== undefined) {
      if (action === 'system') {
        items.push(
          textItem('system', id, timestampMs, asString(asObject(event['args'])?.['content']) ?? message, content, null),
        );
      } else if (source === 'user' || source === 'environment') {
        items.push(
          textItem(
            'user',
            id,
            timestampMs,
            asString(asObject(event['args'])?.['content']) ?? message,
            content,
            source === 'user' ? null : 'environment',
          ),
        );
      } else {
        const choice = asObject(asObject(asArray(response?.['choices'])?.[0])?.['message']);
        const text = newResponse
          ? (asString(choice?.['content']) ?? '')
          : action === 'message'
            ? (asString(asObject(event['args'])?.['content']) ?? message)
            : '';
        const callId = asString(metadata?.['tool_call_id']);
        let args: { readonly argsJson: string; readonly stringified: boolean } = { argsJson: '', stringified: false };
        try {
          if (callId !== undefined) args = argsJsonOf(response, callId, event);
        } catch (error) {
          const reason = tooDeepReason(error);
          if (reason === null) throw error;
          issues.push({ file: instance.file, line: instance.line, reason: `event ${position}: ${reason}; ignored` });
          continue;
        }
        const name = asString(metadata?.['function_name']) ?? action;
        const toolCalls: ToolCall[] =
          callId === undefined
            ? []
            : [
                args.stringified
                  ? { callId, name, argsJson: args.argsJson, argsStringified: true }
                  : { callId, name, argsJson: args.argsJson },
              ];
        let chars = text.length;
        for (const call of toolCalls) chars += call.name.length + call.argsJson.length;
        items.push({
          kind: 'assistant',
          id,
          timestampMs,
          text: kept(text, content),
          chars,
          imageParts: 0,
          imageChars: 0,
          responseId: responseId ?? null,
          toolCalls,
          thinkingChars: 0,
        });
      }
    } else if (observation !== undefined) {
      const text = asString(event['content']) ?? message;
      const callId = asString(metadata?.['tool_call_id']);
      if (callId === undefined)
        items.push(textItem('user', id, timestampMs, text, content, `observation:${observation}`));
      else {
        items.push({
          kind: 'tool_result',
          id,
          timestampMs,
          text: kept(text, content),
          chars: text.length,
          imageParts: 0,
          imageChars: 0,
          callId,
          toolName: asString(metadata?.['function_name']) ?? observation,
          failed: observation === 'error',
        });
      }
    }
  }
  for (const [responseId, usage] of perCall) {
    if (!seenResponses.has(responseId)) addRequest(responseId, asString(usage['model']) ?? null, null, usage);
  }
  return { items, requests, issues };
}
