import { describe, expect, it } from 'vitest';
import { buildFreecodeSession } from '../../../src/ingest/freecode/build.js';
import { type Session, SessionSchema } from '../../../src/session/model.js';
import { fixtureInput, SPEC12 } from './fixture-input.js';

function build(files: Parameters<typeof fixtureInput>[0]): Session {
  const session = buildFreecodeSession(fixtureInput(files), { content: 'text' });
  expect(SessionSchema.safeParse(session).success).toBe(true);
  return session;
}

const MEASURED = [
  { promptTokens: 11840, cacheReadTokens: 0, cacheWriteTokens: 11200, uncachedInputTokens: 640, outputTokens: 212 },
  { promptTokens: 13050, cacheReadTokens: 11200, cacheWriteTokens: 1850, uncachedInputTokens: 0, outputTokens: 96 },
  { promptTokens: 13190, cacheReadTokens: 13050, cacheWriteTokens: 140, uncachedInputTokens: 0, outputTokens: 140 },
  { promptTokens: 13400, cacheReadTokens: 13190, cacheWriteTokens: 210, uncachedInputTokens: 0, outputTokens: 88 },
];

const kinds = (session: Session): string[] => session.items.map((item) => item.kind);

describe('joining the rollout, the store and memory.json (engine.md §12)', () => {
  it('compacted store + rollout + memory: the rollout gives every request, the store the tail, memory the lost prompt and the summary', () => {
    const session = build({
      sessionId: SPEC12.sessionId,
      rollout: SPEC12.rollout,
      messages: SPEC12.messagesAfterCompaction,
      meta: SPEC12.meta,
      memory: SPEC12.memory,
    });
    expect(session.issues).toEqual([]);
    expect(kinds(session)).toEqual([
      'user',
      'assistant',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'summary',
    ]);
    expect(session.requests.map((r) => r.usage)).toMatchObject(MEASURED);
    expect(session.requests.map((r) => [r.itemIndex, r.model, r.provider, r.timestampMs])).toEqual([
      [1, 'claude-sonnet-4-5', 'anthropic', 1790000001805],
      [4, 'claude-sonnet-4-5', 'anthropic', 1790000015010],
      [6, 'claude-sonnet-4-5', 'anthropic', 1790000060010],
      [8, 'claude-sonnet-4-5', 'anthropic', 1790000120010],
    ]);
    const [prompt1, text1, call1, result1, text2, prompt2, text3, prompt3, text4, summary] = session.items;
    // The first prompt is gone from the store but memory.json kept it (the head carve-out, §2.2).
    expect(prompt1).toMatchObject({ text: 'Why does parse() choke on inline tables?', chars: 40, synthetic: null });
    // Responses 1–2 exist only in the rollout: text sizes from textChars, tool call and output in full.
    expect(text1).toMatchObject({ text: null, chars: 59, responseId: '01M32513WCDBTG0BP55A' });
    expect(call1).toMatchObject({
      responseId: '01M32513WCDBTG0BP55A',
      toolCalls: [{ callId: 'toolu_01AbCdEf', name: 'read', argsJson: '{"filePath":"src/parser.ts"}' }],
      chars: 4 + 28,
    });
    expect(result1).toMatchObject({
      callId: 'toolu_01AbCdEf',
      toolName: 'read',
      text: '1\texport function parse(src: string) {\n2\t  // …\n',
      failed: false,
    });
    expect(text2).toMatchObject({ text: null, chars: 66 });
    // Responses 3–4 are still in the store: full text, store ids.
    expect(prompt2).toMatchObject({ id: '3f4e5d6c-7b8a-4990-8a1b-2c3d4e5f6a7b', text: 'Fix it and add a test.' });
    expect(text3).toMatchObject({
      id: '9c8b7a6f-5e4d-4c3b-8a29-1f0e9d8c7b6a',
      text: 'Which test runner do you use: vitest or node:test? I will assume node:test.',
      chars: 75,
    });
    expect(prompt3).toMatchObject({ text: 'node:test is fine.' });
    expect(text4).toMatchObject({ text: 'Understood, adding the test with node:test.' });
    expect(summary).toMatchObject({
      kind: 'summary',
      id: 'summary-7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34-1790000124900',
      chars: 305,
    });
    expect(session.events).toEqual([
      {
        kind: 'compaction',
        itemIndex: 9,
        requestIndex: 4,
        timestampMs: 1790000125000,
        trigger: 'auto',
        tokensBefore: 105,
        tokensAfter: 128,
        tokenUnit: 'estimate',
        summaryItemId: 'summary-7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34-1790000124900',
      },
    ]);
    expect(session).toMatchObject({
      title: 'Fix TOML parser edge case',
      project: '/home/dev/work/toml-parser',
      parentSessionId: null,
      source: 'freecode',
    });
  });

  it('full store + rollout: every text comes from the store and the sizes agree with the rollout', () => {
    const full = build({
      sessionId: SPEC12.sessionId,
      rollout: SPEC12.rollout,
      messages: SPEC12.messagesBeforeCompaction,
      meta: SPEC12.meta,
    });
    const compacted = build({
      sessionId: SPEC12.sessionId,
      rollout: SPEC12.rollout,
      messages: SPEC12.messagesAfterCompaction,
      meta: SPEC12.meta,
      memory: SPEC12.memory,
    });
    expect(full.issues).toEqual([]);
    expect(full.items.filter((i) => i.kind !== 'summary').every((i) => i.text !== null)).toBe(true);
    expect(full.requests).toEqual(compacted.requests);
    // The store's message lines and the rollout's text sizes describe the same content (§7.4, §6.3 textChars).
    expect(full.items.filter((i) => i.kind === 'assistant').map((i) => i.chars)).toEqual(
      compacted.items.filter((i) => i.kind === 'assistant').map((i) => i.chars),
    );
    expect(full.items[2]).toMatchObject({
      id: 'c9d8e7f6-a5b4-4c3d-9e2f-1a0b9c8d7e6f',
      toolCalls: [{ callId: 'toolu_01AbCdEf' }],
    });
    expect(full.items[3]).toMatchObject({
      id: 'c9d8e7f6-a5b4-4c3d-9e2f-1a0b9c8d7e6f:0',
      text: '1\texport function parse(src: string) {\n2\t  // …\n',
    });
  });

  it('store alone: the tail with its usage, the model from meta.json, the summary placed by time', () => {
    const session = build({
      sessionId: SPEC12.sessionId,
      messages: SPEC12.messagesAfterCompaction,
      meta: SPEC12.meta,
      memory: SPEC12.memory,
      projectDir: 'home__dev__work__toml_h_parser',
    });
    expect(session.issues).toEqual([]);
    expect(kinds(session)).toEqual(['user', 'assistant', 'user', 'assistant', 'summary']);
    expect(session.requests.map((r) => [r.itemIndex, r.model, r.provider, r.usage?.promptTokens])).toEqual([
      [1, 'claude-sonnet-4-5', 'anthropic', 13190],
      [3, 'claude-sonnet-4-5', 'anthropic', 13400],
    ]);
    // No rollout: the compaction is known only from its summary, so its trigger and token counts are unknown.
    expect(session.events).toEqual([
      expect.objectContaining({
        kind: 'compaction',
        trigger: 'unknown',
        tokensBefore: null,
        tokensAfter: null,
        itemIndex: 4,
        requestIndex: 2,
      }),
    ]);
  });

  it('rollout alone: requests and events in full; prompt sizes derived from promptChars where possible, the first reported', () => {
    const session = build({ sessionId: SPEC12.sessionId, rollout: SPEC12.rollout });
    expect(session.requests.map((r) => r.usage)).toMatchObject(MEASURED);
    expect(kinds(session)).toEqual([
      'user',
      'assistant',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const users = session.items.filter((i) => i.kind === 'user');
    expect(users.map((u) => u.text)).toEqual([null, null, null]);
    // 46400 − 45980 − 66 (response 2's text): the §12 promptChars are invented, so this estimate is off; the rule is what is tested.
    expect(users.map((u) => u.chars)).toEqual([0, 354, 47100 - 46400 - 75]);
    expect(session.issues).toEqual([
      {
        file: SPEC12.rollout,
        line: 4,
        reason:
          'the user prompt sent here is in neither the session store nor memory.json, and its size cannot be derived from promptChars; counted as 0 characters',
      },
    ]);
    expect(session.events).toMatchObject([{ kind: 'compaction', trigger: 'auto', summaryItemId: null }]);
  });

  it('rollout + memory.json: the prompts get their recorded text', () => {
    const session = build({ sessionId: SPEC12.sessionId, rollout: SPEC12.rollout, memory: SPEC12.memory });
    expect(session.issues).toEqual([]);
    expect(session.items.filter((i) => i.kind === 'user').map((u) => u.text)).toEqual([
      'Why does parse() choke on inline tables?',
      'Fix it and add a test.',
      'node:test is fine.',
    ]);
  });

  it('keeps only character counts in sizes mode', () => {
    const session = buildFreecodeSession(
      fixtureInput({
        sessionId: SPEC12.sessionId,
        rollout: SPEC12.rollout,
        messages: SPEC12.messagesBeforeCompaction,
        meta: SPEC12.meta,
        memory: SPEC12.memory,
      }),
      { content: 'sizes' },
    );
    const withText = buildFreecodeSession(
      fixtureInput({
        sessionId: SPEC12.sessionId,
        rollout: SPEC12.rollout,
        messages: SPEC12.messagesBeforeCompaction,
        meta: SPEC12.meta,
        memory: SPEC12.memory,
      }),
      { content: 'text' },
    );
    expect(session.items.every((i) => i.text === null)).toBe(true);
    expect(session.items.map((i) => i.chars)).toEqual(withText.items.map((i) => i.chars));
    expect(session.requests).toEqual(withText.requests);
  });

  it('reports a store that shares nothing with the rollout and keeps the rollout', () => {
    const session = build({
      sessionId: SPEC12.sessionId,
      rollout: SPEC12.rollout,
      messages:
        'test/fixtures/freecode/home-aug/sessions/home__dev__my_h_app/a1b2c3d4-0000-4000-8000-000000000001/messages.jsonl',
    });
    expect(session.requests).toHaveLength(4);
    expect(session.issues.map((i) => i.reason)).toContain(
      'the session store shares no assistant line with the rollout log (compared from the end by order, shape and usage); its assistant text is not used',
    );
  });
});

describe('a first prompt that neither the store nor memory.json kept', () => {
  const DIR = 'test/fixtures/freecode/compacted-head-lost';
  const ID = '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34';

  // The fixture is §12 plus a fourth message after the compaction, whose promptChars is
  // system (41170) + "Compacted session summary:\n" + summary (305) + what the store holds.
  it('is sized from the system part estimated after the last compaction', () => {
    const session = build({
      sessionId: ID,
      rollout: `${DIR}/rollout/sessions/${ID}/events.jsonl`,
      messages: `${DIR}/sessions/home__dev__work__toml_h_parser/${ID}/messages.jsonl`,
      meta: `${DIR}/sessions/home__dev__work__toml_h_parser/${ID}/meta.json`,
      memory: `${DIR}/memory/${ID}/memory.json`,
    });
    expect(session.issues).toEqual([]);
    const users = session.items.filter((i) => i.kind === 'user');
    expect(users.map((u) => [u.text, u.chars])).toEqual([
      [null, 'Why does parse() choke on inline tables?'.length],
      ['Fix it and add a test.', 22],
      ['node:test is fine.', 18],
      ['Go.', 3],
    ]);
    expect(session.requests).toHaveLength(5);
  });

  it('stays unknown, and reported, when no request follows the last compaction', () => {
    const session = build({
      sessionId: SPEC12.sessionId,
      rollout: SPEC12.rollout,
      messages: SPEC12.messagesAfterCompaction,
      meta: SPEC12.meta,
    });
    expect(session.items[0]).toMatchObject({ kind: 'user', chars: 0 });
    expect(session.issues.map((i) => i.line)).toEqual([4]);
  });
});
