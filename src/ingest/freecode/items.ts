/**
 * Normalized items from FreeCode's two sources. `chars` follows the contract of
 * `src/session/model.ts` whatever the source: text length, plus `name + argsJson` per tool call
 * for assistant items, the model-facing output for tool results. Pure: no I/O.
 */
import type { AssistantItem, Item, ToolCall, ToolResultItem, UserItem } from '../../session/model.js';
import { emptyObjectArray, mapPacked } from '../../session/packed-array.js';
import { type ContentMode, kept } from '../content-mode.js';
import type { StoreMessage, StorePart } from './store.js';
import { rolloutArgsJson } from './rollout.js';
import type { RolloutCall } from './timeline.js';

/** How many image parts there are. */
function imagePartsOf(parts: readonly StorePart[]): number {
  let imageParts = 0;
  for (const part of parts) if (part.kind === 'image') imageParts += 1;
  return imageParts;
}

/** The base64 characters of the image parts. */
function imageCharsOf(parts: readonly StorePart[]): number {
  let imageChars = 0;
  for (const part of parts) if (part.kind === 'image') imageChars += part.dataChars;
  return imageChars;
}

/** The text parts joined (null when their text was not kept) and their total length. */
function joinedText(
  parts: readonly StorePart[],
  content: ContentMode,
): { readonly text: string | null; readonly chars: number } {
  let text = '';
  let chars = 0;
  for (const part of parts) {
    if (part.kind !== 'text') continue;
    text += part.text ?? '';
    chars += part.chars;
  }
  return { text: content === 'text' ? text : null, chars };
}

function toolCallChars(calls: readonly ToolCall[]): number {
  let chars = 0;
  for (const call of calls) chars += call.name.length + call.argsJson.length;
  return chars;
}

/** A user item from a store line: its text parts joined, image parts counted apart. */
export function userItemFromStore(message: StoreMessage, content: ContentMode): UserItem {
  const { text, chars } = joinedText(message.parts, content);
  return {
    kind: 'user',
    id: message.id,
    timestampMs: message.timestampMs,
    text,
    chars,
    imageParts: imagePartsOf(message.parts),
    imageChars: imageCharsOf(message.parts),
    synthetic: message.synthetic,
  };
}

/** A user item whose content is known from elsewhere (memory.json) or not at all (`text` null, chars to be sized). */
export function userItem(
  id: string,
  timestampMs: number,
  text: string | null,
  chars: number,
  synthetic: string | null,
  content: ContentMode,
): UserItem {
  return {
    kind: 'user',
    id,
    timestampMs,
    text: text === null ? null : kept(text, content),
    chars,
    imageParts: 0,
    imageChars: 0,
    synthetic,
  };
}

export type StoreCallInfo = { readonly callId: string; readonly failed: boolean };

/**
 * The items of one store line of a response: one assistant item (its text and tool calls), then
 * one tool_result per tool part (FreeCode keeps call and result together in one `tool` part, §7.3).
 */
export function itemsFromStoreLine(
  message: StoreMessage,
  responseId: string,
  thinkingChars: number,
  callInfo: (part: Extract<StorePart, { kind: 'tool' }>) => StoreCallInfo,
  content: ContentMode,
): Item[] {
  const { text, chars } = joinedText(message.parts, content);
  const tools = message.parts.filter((part): part is Extract<StorePart, { kind: 'tool' }> => part.kind === 'tool');
  const infos = mapPacked(tools, callInfo);
  const toolCalls: ToolCall[] = mapPacked(tools, (part, i) => ({
    callId: infos[i]?.callId ?? '',
    name: part.name,
    argsJson: part.argsJson,
    // The store's reader wrote it with `JSON.stringify` (`StorePart`), except in `usage` mode.
    ...(content === 'usage' ? {} : { argsStringified: true as const }),
  }));
  const assistant: AssistantItem = {
    kind: 'assistant',
    id: message.id,
    timestampMs: message.timestampMs,
    text,
    chars: chars + toolCallChars(toolCalls),
    imageParts: imagePartsOf(message.parts),
    imageChars: imageCharsOf(message.parts),
    responseId,
    toolCalls,
    thinkingChars,
  };
  const items: Item[] = [assistant];
  for (let i = 0; i < tools.length; i++) {
    const part = tools[i];
    if (part === undefined) continue;
    const result: ToolResultItem = {
      kind: 'tool_result',
      id: `${message.id}:${part.partIndex}`,
      timestampMs: message.timestampMs,
      text: part.result === null ? null : kept(part.result, content),
      chars: part.resultChars,
      imageParts: 0,
      imageChars: 0,
      callId: toolCalls[i]?.callId ?? '',
      toolName: part.name,
      failed: infos[i]?.failed ?? false,
    };
    items.push(result);
  }
  return items;
}

/** The text line of a response known only from the rollout: its size (`textChars`), not its content. */
export function textItemFromRollout(
  id: string,
  timestampMs: number,
  textChars: number,
  responseId: string,
  thinkingChars: number,
  content: ContentMode,
): AssistantItem {
  return {
    kind: 'assistant',
    id,
    timestampMs,
    // An empty text is known exactly; a non-empty one only by its length ('sizes' keeps no text).
    text: content === 'text' && textChars === 0 ? '' : null,
    chars: textChars,
    imageParts: 0,
    imageChars: 0,
    responseId,
    toolCalls: emptyObjectArray(),
    thinkingChars,
  };
}

/** A tool call known only from the rollout (full args and output, §6.3) and its result, when recorded. */
export function itemsFromRolloutCall(
  call: RolloutCall,
  responseId: string,
  thinkingChars: number,
  content: ContentMode,
): Item[] {
  // No provider id (Aug logs): derive one from the event, in the spirit of FreeCode's tool-<messageId>-<i> (§7.3).
  const callId = call.callId ?? `tool-${call.eventId}`;
  // The rollout's reader wrote the arguments with `JSON.stringify` (`RolloutCall`), except in `usage` mode.
  const toolCall: ToolCall = {
    callId,
    name: call.tool,
    argsJson: rolloutArgsJson(call.args),
    ...(content === 'usage' ? {} : { argsStringified: true as const }),
  };
  const assistant: AssistantItem = {
    kind: 'assistant',
    id: call.eventId,
    timestampMs: call.timestampMs,
    text: content === 'text' ? '' : null,
    chars: toolCallChars([toolCall]),
    imageParts: 0,
    imageChars: 0,
    responseId,
    toolCalls: [toolCall],
    thinkingChars,
  };
  if (call.output === null) return [assistant];
  const result: ToolResultItem = {
    kind: 'tool_result',
    id: `${call.output.eventId}:result`,
    timestampMs: call.output.timestampMs,
    text: call.output.text === null ? null : kept(call.output.text, content),
    chars: call.output.chars,
    imageParts: 0,
    imageChars: 0,
    callId,
    toolName: call.tool,
    failed: call.output.failed,
  };
  return [assistant, result];
}

/**
 * What an item adds to FreeCode's `model.request.promptChars` (§6.5: text and code contents,
 * `JSON.stringify(args)`, results and image base64 lengths; tool names are not counted).
 */
export function promptCharsOf(item: Item): number {
  switch (item.kind) {
    case 'assistant': {
      let names = 0;
      for (const call of item.toolCalls) names += call.name.length;
      return item.chars - names + item.imageChars;
    }
    case 'user':
    case 'tool_result':
    case 'summary':
    case 'system':
      return item.chars + item.imageChars;
    default: {
      const unreachable: never = item;
      return unreachable;
    }
  }
}
