/**
 * Test helper: a small model of a FreeCode conversation and the records FreeCode would write for
 * it (rollout records, store lines, memory.json), so that ingest can be checked against the truth.
 */
import fc from 'fast-check';
import type { FreecodeSessionInput } from '../../../src/ingest/freecode/build.js';
import type { RolloutRecord } from '../../../src/ingest/freecode/rollout.js';
import type { StoreMessage, StorePart } from '../../../src/ingest/freecode/store.js';
import type { MeasuredUsage } from '../../../src/session/model.js';

export type Call = { readonly name: string; readonly args: { readonly path: string }; readonly output: string };
export type Response = { readonly text: string; readonly calls: readonly Call[] };
export type Run = { readonly prompt: string; readonly responses: readonly Response[] };

const call: fc.Arbitrary<Call> = fc.record({
  name: fc.constantFrom('read', 'bash', 'grep', 'edit'),
  args: fc.record({ path: fc.string({ maxLength: 12 }) }),
  output: fc.string({ maxLength: 40 }),
});

const toolResponse: fc.Arbitrary<Response> = fc.record({
  text: fc.string({ maxLength: 20 }),
  calls: fc.array(call, { minLength: 1, maxLength: 2 }),
});
const finalResponse: fc.Arbitrary<Response> = fc.record({ text: fc.string({ maxLength: 20 }), calls: fc.constant([]) });

export const conversation: fc.Arbitrary<readonly Run[]> = fc.array(
  fc.record({
    prompt: fc.string({ minLength: 1, maxLength: 30 }),
    responses: fc
      .tuple(fc.array(toolResponse, { maxLength: 3 }), finalResponse)
      .map(([tools, last]) => [...tools, last]),
  }),
  { minLength: 1, maxLength: 4 },
);

export const SYSTEM_CHARS = 5000;
const SESSION = 'gen-session';
const ROLLOUT_FILE = 'gen/events.jsonl';

function usageFor(n: number): MeasuredUsage {
  const promptTokens = 1000 + 37 * n;
  const cacheReadTokens = 900 + 30 * n;
  return {
    promptTokens,
    uncachedInputTokens: 0,
    cacheReadTokens,
    cacheWriteTokens: promptTokens - cacheReadTokens,
    cacheWrite5mTokens: null,
    cacheWrite1hTokens: null,
    outputTokens: 10 + n,
    reasoningTokens: null,
  };
}

export type Written = {
  readonly records: readonly RolloutRecord[];
  readonly store: readonly StoreMessage[];
  /** Index in `store` of each run's user line. */
  readonly userLineIndex: readonly number[];
  readonly firstPrompt: { readonly content: string; readonly timestampMs: number };
  readonly usages: readonly MeasuredUsage[];
};

/** The files FreeCode would write for the conversation (newest format, no compaction). */
export function write(runs: readonly Run[]): Written {
  const records: RolloutRecord[] = [];
  const store: StoreMessage[] = [];
  const userLineIndex: number[] = [];
  const usages: MeasuredUsage[] = [];
  let clock = 1_800_000_000_000;
  let promptChars = SYSTEM_CHARS;
  let n = 0;
  let line = 0;
  let firstPrompt = { content: '', timestampMs: 0 };
  const tick = (): number => (clock += 10);
  const id = (): string => `E${String((line += 1)).padStart(19, '0')}`;
  const message = (role: 'user' | 'assistant', parts: StorePart[], usage: MeasuredUsage | null): void => {
    store.push({
      line: store.length + 1,
      id: `m-${store.length + 1}`,
      role,
      synthetic: null,
      parts,
      timestampMs: tick(),
      usage,
      interrupted: false,
      parentId: null,
    });
  };

  runs.forEach((run, r) => {
    userLineIndex.push(store.length);
    message('user', [{ kind: 'text', text: run.prompt, chars: run.prompt.length }], null);
    if (r === 0) firstPrompt = { content: run.prompt, timestampMs: tick() };
    promptChars += run.prompt.length;
    run.responses.forEach((response, k) => {
      const usage = usageFor(n);
      usages.push(usage);
      records.push({
        kind: 'model_request',
        line,
        eventId: id(),
        timestampMs: tick(),
        turnId: `turn-${k}`,
        provider: 'anthropic',
        model: 'm',
        promptChars,
      });
      records.push({
        kind: 'model_response',
        line,
        eventId: id(),
        timestampMs: tick(),
        turnId: `turn-${k}`,
        provider: 'anthropic',
        model: 'm',
        usage,
        toolCallNames: response.calls.map((c) => c.name),
        textChars: response.text.length,
        thinkingChars: 0,
      });
      let first = true;
      if (response.text !== '' || response.calls.length === 0) {
        message('assistant', [{ kind: 'text', text: response.text, chars: response.text.length }], usage);
        first = false;
      }
      response.calls.forEach((c, i) => {
        const argsJson = JSON.stringify(c.args);
        records.push({
          kind: 'function_call',
          line,
          eventId: id(),
          timestampMs: tick(),
          tool: c.name,
          args: { value: c.args },
          callId: `call-${n}-${i}`,
          nested: false,
        });
        records.push({
          kind: 'function_output',
          line,
          eventId: id(),
          timestampMs: tick(),
          tool: c.name,
          output: c.output,
          outputChars: c.output.length,
          failed: false,
          callId: `call-${n}-${i}`,
        });
        message(
          'assistant',
          [{ kind: 'tool', partIndex: 0, name: c.name, argsJson, result: c.output, resultChars: c.output.length }],
          first ? usage : null,
        );
        first = false;
        promptChars += argsJson.length + c.output.length;
      });
      promptChars += response.text.length;
      n += 1;
    });
  });
  return { records, store, userLineIndex, firstPrompt, usages };
}

/** Builder input: the whole rollout, the store from the `cut`-th user line on (a compacted tail), memory with the first prompt. */
export function inputFor(written: Written, cut: number): FreecodeSessionInput {
  const from = written.userLineIndex[cut] ?? 0;
  return {
    sessionId: SESSION,
    files: [],
    issues: [],
    rollout: { file: ROLLOUT_FILE, records: written.records },
    store: {
      messagesFile: 'gen/messages.jsonl',
      metaFile: null,
      projectDir: null,
      messages: written.store.slice(from),
      meta: { id: null, title: null, projectPath: null, provider: null, model: null, parentId: null, leafId: null },
    },
    memory: { file: 'gen/memory.json', memory: { summaries: [], userMessages: [written.firstPrompt] } },
  };
}

/** What the normalized items must say, in order: kind, chars, and text where some source has it. */
export function expectedItems(
  runs: readonly Run[],
  cut: number,
): { kind: string; chars: number; text: string | null }[] {
  const items: { kind: string; chars: number; text: string | null }[] = [];
  runs.forEach((run, r) => {
    const stored = r >= cut;
    items.push({ kind: 'user', chars: run.prompt.length, text: stored || r === 0 ? run.prompt : null });
    for (const response of run.responses) {
      if (response.text !== '' || response.calls.length === 0) {
        items.push({
          kind: 'assistant',
          chars: response.text.length,
          text: stored || response.text === '' ? response.text : null,
        });
      }
      for (const c of response.calls) {
        items.push({ kind: 'assistant', chars: c.name.length + JSON.stringify(c.args).length, text: '' });
        items.push({ kind: 'tool_result', chars: c.output.length, text: c.output });
      }
    }
  });
  return items;
}
