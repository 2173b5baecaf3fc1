import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/session/model.js';
import { loadOne } from './load.js';

const DIR = 'test/fixtures/freecode/rollout-only';
const FILE = `${DIR}/rollout/sessions/c3d4e5f6-0000-4000-8000-000000000003/events.jsonl`;

let cached: Session | null = null;
async function session(): Promise<Session> {
  cached ??= await loadOne(DIR);
  return cached;
}

describe('a newest-format rollout with no store', () => {
  it('has one request per model.response plus the billed side request, and no request for the failed send', async () => {
    const s = await session();
    expect(s.requests.map((r) => [r.agentId, r.usage?.promptTokens])).toEqual([
      [null, 20000],
      [null, 21000],
      [null, 21100],
      [null, 21300],
      ['memory:extraction', 3000],
      [null, 21500],
      [null, 21700],
      [null, 15000],
    ]);
    expect(s.requests[3]?.model).toBe('claude-sonnet-4-5'); // "(provider default)" + echoedModel
    expect(s.requests[4]).toMatchObject({ model: 'claude-haiku-4-5', provider: 'anthropic' });
  });

  it('places user messages at turn-0 requests, pokes and steers, but not before the overflow retry', async () => {
    const users = (await session()).items.filter((i) => i.kind === 'user');
    expect(users.map((u) => [u.synthetic, u.chars])).toEqual([
      [null, 0], // first prompt: no earlier request to difference against
      ['auto_poke', 57],
      [null, 26],
      ['steer', 35],
      [null, 1200],
    ]);
    expect(users[3]?.id).toBe('99999999-cccc-4ccc-8ccc-000000000001');
  });

  it('reports only the prompt whose size is unknown', async () => {
    expect((await session()).issues).toEqual([
      {
        file: FILE,
        line: 4,
        reason: expect.stringContaining('the user prompt sent here is in neither the session store nor memory.json'),
      },
    ]);
  });

  it('pairs parallel outputs with their calls by callId and skips codemode inner calls', async () => {
    const items = (await session()).items;
    const results = items.filter((i) => i.kind === 'tool_result');
    expect(results.map((r) => [r.callId, r.toolName, r.failed])).toEqual([
      ['call_1', 'grep', false],
      ['call_2', 'read', false],
      ['call_3', 'bash', false],
      ['call_5', 'write', true],
    ]);
    expect(results[0]?.text).toBe('src/a.ts:3: // TODO handle empty input\nsrc/b.ts:9: // TODO cache this\n');
    // A denied call is answered with the text the model was given.
    expect(results[3]?.text).toBe('Blocked by hook guard-writes: writes to /etc are blocked');
  });

  it('records hook blocks, the model error, the overflow compaction, the overflow, subagents and the later auto compaction', async () => {
    const s = await session();
    expect(
      s.events.map((e) => [
        e.kind,
        e.requestIndex,
        e.kind === 'compaction' ? e.trigger : e.kind === 'hook_block' ? e.hookName : null,
      ]),
    ).toEqual([
      ['hook_block', 4, 'PreCompact'],
      ['hook_block', 6, 'guard-writes'],
      ['model_error', 7, null],
      ['compaction', 7, 'overflow'],
      ['overflow', 7, null],
      ['subagent', 8, null],
      ['subagent', 8, null],
      ['compaction', 8, 'auto'],
    ]);
    expect(s.events[2]).toMatchObject({
      kind: 'model_error',
      errorKind: 'provider',
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
    });
    expect(s.events[3]).toMatchObject({ tokensBefore: 52000, tokensAfter: 9000, tokenUnit: 'estimate' });
  });

  it('puts every request right before its response items', async () => {
    const s = await session();
    for (const request of s.requests.filter((r) => r.agentId === null)) {
      expect(s.items[request.itemIndex]?.kind).toBe('assistant');
    }
  });
});
