/**
 * opencode messages and parts → one normalized session (pure; formats.md §3). Messages in id
 * order (ids sort by time). One request per assistant message with non-zero tokens — or, for an
 * older message covering several steps, one per `step-finish` part that carries tokens. A
 * compaction is the user message holding a `compaction` part plus the `summary:true` assistant
 * message; the summary call is billed as a side request (`agentId` `compaction`) and its text
 * becomes the summary item.
 */
import type { HarnessEvent, IngestIssue, Item, Request, Session } from '../../session/model.js';
import { type ContentMode, kept } from '../content-mode.js';
import { asObject, asString, type JsonObject } from '../json-value.js';
import { type OpencodeMessage, type OpencodeSessionInfo, opencodeUsage } from './storage.js';

export type OpencodeMessageInput = {
  readonly file: string;
  readonly message: OpencodeMessage;
  readonly parts: readonly { readonly file: string; readonly part: JsonObject }[];
};

export type OpencodeSessionInput = {
  readonly sessionId: string;
  readonly files: readonly string[];
  readonly info: OpencodeSessionInfo;
  readonly messages: readonly OpencodeMessageInput[];
  readonly issues: readonly IngestIssue[];
};

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** Builds the session; bad content is already in `issues` or is added here. */
export function buildOpencodeSession(input: OpencodeSessionInput, options: { readonly content: ContentMode }): Session {
  const items: Item[] = [];
  const requests: Request[] = [];
  const events: HarnessEvent[] = [];
  const issues: IngestIssue[] = [...input.issues];
  let pendingCompaction: { trigger: 'auto' | 'manual' | 'overflow' } | null = null;
  const content = options.content;

  for (const { file, message, parts } of input.messages) {
    if (message.role === 'user') {
      let text = '';
      let synthetic: string | null = null;
      for (const { part } of parts) {
        if (part['type'] === 'text') {
          text += asString(part['text']) ?? '';
          if (part['synthetic'] === true) synthetic = 'synthetic';
        } else if (part['type'] === 'compaction') {
          pendingCompaction = {
            trigger: part['overflow'] === true ? 'overflow' : part['auto'] === true ? 'auto' : 'manual',
          };
        }
      }
      if (text.length > 0)
        items.push({
          kind: 'user',
          id: message.id,
          timestampMs: message.createdMs,
          text: kept(text, content),
          chars: text.length,
          imageParts: 0,
          imageChars: 0,
          synthetic,
        });
      continue;
    }
    const agentId = message.summary ? 'compaction' : null;
    const model = message.model ?? 'unknown';
    const steps = parts.filter(({ part }) => part['type'] === 'step-finish' && asObject(part['tokens']) !== undefined);
    const usages = (
      steps.length >= 2
        ? steps.map(({ file: f, part }) => ({ file: f, tokens: asObject(part['tokens']) ?? {} }))
        : message.tokens === null
          ? []
          : [{ file, tokens: message.tokens }]
    ).map(({ file: f, tokens }) => ({ file: f, ...opencodeUsage(tokens) }));
    for (const reading of usages) {
      if (reading.problem !== null) issues.push({ file: reading.file, line: 0, reason: reading.problem });
      // An invalid usage is still a request: kept unpriced (usage null), never dropped or priced at $0.
      if (reading.usage === null && reading.invalid !== true) continue;
      requests.push({
        index: requests.length,
        itemIndex: items.length,
        model,
        provider: message.provider,
        timestampMs: message.createdMs,
        usage: reading.usage,
        agentId,
      });
    }
    if (message.error !== null) {
      events.push({
        kind: 'model_error',
        itemIndex: items.length,
        requestIndex: requests.length,
        timestampMs: message.createdMs,
        errorKind: 'api_error',
        message: message.error,
      });
    }
    if (message.summary) {
      let text = '';
      for (const { part } of parts) if (part['type'] === 'text') text += asString(part['text']) ?? '';
      const itemIndex = items.length;
      items.push({
        kind: 'summary',
        id: message.id,
        timestampMs: message.createdMs,
        text: kept(text, content),
        chars: text.length,
        imageParts: 0,
        imageChars: 0,
      });
      events.push({
        kind: 'compaction',
        itemIndex,
        requestIndex: requests.length,
        timestampMs: message.createdMs,
        trigger: pendingCompaction?.trigger ?? 'unknown',
        tokensBefore: null,
        tokensAfter: null,
        tokenUnit: 'provider',
        summaryItemId: message.id,
      });
      pendingCompaction = null;
      continue;
    }
    let thinkingChars = 0;
    for (const { part } of parts) {
      const id = asString(part['id']) ?? `${message.id}:${items.length}`;
      switch (part['type']) {
        case 'reasoning':
          thinkingChars += asString(part['text'])?.length ?? 0;
          break;
        case 'text': {
          const text = asString(part['text']) ?? '';
          items.push({
            kind: 'assistant',
            id,
            timestampMs: message.createdMs,
            text: kept(text, content),
            chars: text.length,
            imageParts: 0,
            imageChars: 0,
            responseId: message.id,
            toolCalls: [],
            thinkingChars,
          });
          thinkingChars = 0;
          break;
        }
        case 'tool': {
          const state = asObject(part['state']);
          const callId = asString(part['callID']) ?? id;
          const name = asString(part['tool']) ?? '';
          const argsJson = JSON.stringify(state?.['input'] ?? {});
          items.push({
            kind: 'assistant',
            id,
            timestampMs: message.createdMs,
            text: kept('', content),
            chars: name.length + argsJson.length,
            imageParts: 0,
            imageChars: 0,
            responseId: message.id,
            toolCalls: [{ callId, name, argsJson, argsStringified: true }],
            thinkingChars,
          });
          thinkingChars = 0;
          const status = asString(state?.['status']);
          if (status === 'completed' || status === 'error') {
            // The output the model saw first, before any later pruning cleared it (§3.4).
            const output = status === 'error' ? textOf(state?.['error']) : textOf(state?.['output']);
            items.push({
              kind: 'tool_result',
              id: `${id}:result`,
              timestampMs: message.createdMs,
              text: kept(output, content),
              chars: output.length,
              imageParts: 0,
              imageChars: 0,
              callId,
              toolName: name,
              failed: status === 'error',
            });
          }
          break;
        }
        default:
          break;
      }
    }
  }
  return {
    id: input.sessionId,
    source: 'opencode',
    title: input.info.title,
    project: input.info.directory,
    files: [...input.files],
    items,
    requests,
    events,
    issues,
    parentSessionId: input.info.parentId,
    totalsOnly: null,
  };
}
