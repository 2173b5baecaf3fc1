import { describe, expect, it } from 'vitest';
import {
  AUG_ENGINE_PARAMS,
  InMemoryMemoryStore,
  MemoryService,
  engineParams,
  freshMemoryState,
  parseMemoryState,
} from '../../src/engine/index.js';
import type { CompactionHooks, HookContext, LlmSummaryRequest } from '../../src/engine/index.js';

function recordingHooks(
  allowed: boolean,
  reason?: string,
): CompactionHooks & { pre: HookContext[]; post: HookContext[] } {
  const pre: HookContext[] = [];
  const post: HookContext[] = [];
  return {
    pre,
    post,
    preCompact: (context) => {
      pre.push(context);
      return allowed ? { allowed: true } : { allowed: false, reason };
    },
    postCompact: (context) => {
      post.push(context);
    },
  };
}

/** Three user turns of 100-char messages: the selector has a2 to summarize (§2.2 first vector). */
function withThreeTurns(service: MemoryService): void {
  let t = 1_000;
  for (const role of ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'] as const) {
    service.addMessage(role, `${role} ${'x'.repeat(99 - role.length)}`, (t += 10));
  }
}

describe('MemoryService recording (engine.md §4.3)', () => {
  it('estimates each message, keeps a running total and saves after every message', () => {
    const store = new InMemoryMemoryStore();
    const service = new MemoryService('s1', { store });
    const first = service.addMessage('user', 'Why does parse() choke on inline tables?', 1_790_000_000_002);
    expect(first).toMatchObject({ role: 'user', tokenCount: 10, timestamp: 1_790_000_000_002 });
    expect(first.id.startsWith('msg-1790000000002-')).toBe(true);
    service.addMessage('assistant', '', 1_790_000_000_003);
    expect(service.state.tokenCount).toBe(10);
    expect(store.saveCount).toBe(2);
    expect(store.load('s1')).toBe(service.state);
  });

  it('gives unique deterministic ids even for equal timestamps and reloaded states', () => {
    const store = new InMemoryMemoryStore();
    const a = new MemoryService('s', { store });
    a.addMessage('user', 'one', 5);
    a.addMessage('user', 'two', 5);
    const b = new MemoryService('s', { store });
    b.addMessage('user', 'three', 5);
    const ids = b.state.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(3);
    const again = new MemoryService('t', { store: new InMemoryMemoryStore() });
    again.addMessage('user', 'one', 5);
    expect(again.state.messages[0]?.id).toBe(a.state.messages[0]?.id);
  });

  it('starts fresh from a missing or unreadable state', () => {
    expect(new MemoryService('s', { store: new InMemoryMemoryStore() }).state).toEqual(freshMemoryState('s'));
    expect(parseMemoryState({ sessionId: 's', messages: 'corrupt' })).toBeUndefined();
    const valid = { ...freshMemoryState('s'), tokenCount: 3 };
    expect(parseMemoryState(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
  });

  it('records a tool turn with the transcript (newest) under the 4,000-char per-turn budget', () => {
    const service = new MemoryService('s');
    const message = service.addToolTurn('Reading.', [{ tool: 'read', args: { filePath: 'a.ts' }, output: 'x' }], 1);
    expect(message.content).toBe('Reading.\nTool read: {"filePath":"a.ts"} -> x');
  });

  it('Aug version: text or "[Executed N tools]", and "Tool " messages truncated at 2,000 chars', () => {
    const service = new MemoryService('s', { params: AUG_ENGINE_PARAMS });
    expect(service.addToolTurn('Reading.', [{ tool: 'read' }], 1).content).toBe('Reading.');
    expect(service.addToolTurn('', [{ tool: 'read' }, { tool: 'grep' }], 2).content).toBe('[Executed 2 tools]');
    const long = `Tool ${'y'.repeat(2_500)}`;
    expect(service.addMessage('assistant', long, 3).content).toBe(
      `${long.slice(0, 2_000)}\n[tool output truncated for memory]`,
    );
    expect(service.addMessage('user', long, 4).content).toBe(long);
    expect(service.addMessage('assistant', `x${long}`, 5).content).toBe(`x${long}`);
  });
});

describe('MemoryService.compact (engine.md §4.5)', () => {
  it('with nothing to summarize: success, no summary, no hooks, nothing saved', () => {
    const store = new InMemoryMemoryStore();
    const hooks = recordingHooks(true);
    const service = new MemoryService('s', { store, hooks });
    service.addMessage('user', 'hi', 1);
    service.addMessage('assistant', 'hello', 2);
    const saves = store.saveCount;
    const result = service.compact({ nowMs: 10 });
    expect(result).toEqual({
      kind: 'nothing-to-compact',
      success: true,
      preservedMessageIds: service.state.messages.map((m) => m.id),
      compactedMessageIds: [],
      tokenCountBefore: 3,
      tokenCountAfter: 3,
    });
    expect(hooks.pre).toEqual([]);
    expect(store.saveCount).toBe(saves);
  });

  it('a blocking PreCompact hook leaves history intact and returns the blocked result', () => {
    const hooks = recordingHooks(false, 'compaction disabled in CI');
    const service = new MemoryService('s', { hooks });
    withThreeTurns(service);
    const before = service.state;
    const result = service.compact({ nowMs: 10 });
    expect(result).toEqual({
      kind: 'blocked',
      success: false,
      blocked: true,
      reason: 'compaction disabled in CI',
      preservedMessageIds: before.messages.map((m) => m.id),
      compactedMessageIds: [],
      tokenCountBefore: 150,
      tokenCountAfter: 150,
    });
    expect(service.state).toBe(before);
    expect(hooks.pre).toEqual([{ sessionId: 's', turnCount: 0 }]);
    expect(hooks.post).toEqual([]);
    expect(service.holds.blockedAtTokenCount).toBe(150);
  });

  it('compacts: heuristic summary, preserved tail, counts, hooks with the compaction count', () => {
    const store = new InMemoryMemoryStore();
    const hooks = recordingHooks(true);
    const service = new MemoryService('s', { store, hooks });
    withThreeTurns(service);
    const [, a2] = service.state.messages;
    const result = service.compact({ nowMs: 99 });
    if (result.kind !== 'compacted') throw new Error(`expected a compaction, got ${result.kind}`);
    expect(result.compactedMessageIds).toEqual([a2?.id]);
    expect(result.summarizer).toEqual({ kind: 'heuristic' });
    expect(result.summary.id).toBe('summary-s-99');
    expect(result.tokenCountAfter).toBe(result.summary.summaryTokenCount + 5 * 25);
    expect(service.state).toMatchObject({
      tokenCount: result.tokenCountAfter,
      totalCompactions: 1,
      lastCompactionAt: 99,
    });
    expect(service.state.messages.map((m) => m.id)).toEqual(result.preservedMessageIds);
    expect(service.state.summaries).toEqual([result.summary]);
    expect(store.load('s')).toBe(service.state);
    expect(hooks.pre).toEqual([{ sessionId: 's', turnCount: 0 }]);
    expect(hooks.post).toEqual([{ sessionId: 's', turnCount: 1 }]);
  });

  it('uses the LLM summary when it succeeds, the heuristic one when it fails or is empty', () => {
    const requests: LlmSummaryRequest[] = [];
    const ok = new MemoryService('s');
    withThreeTurns(ok);
    const result = ok.compact({
      nowMs: 7,
      llm: {
        model: 'haiku',
        summarize: (request) => {
          requests.push(request);
          return { ok: true, content: '  ## Goal\n- g  ' };
        },
      },
    });
    expect(result).toMatchObject({
      kind: 'compacted',
      summary: { content: '## Goal\n- g', summaryTokenCount: 3 },
      summarizer: { kind: 'llm' },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.model).toBe('haiku');

    for (const outcome of [
      { ok: false as const, error: 'boom' },
      { ok: true as const, content: '   ' },
    ]) {
      const failing = new MemoryService('s');
      withThreeTurns(failing);
      const fallback = failing.compact({ nowMs: 7, llm: { model: 'haiku', summarize: () => outcome } });
      if (fallback.kind !== 'compacted') throw new Error('expected a compaction');
      expect(fallback.summary.content.startsWith('## Goal\n')).toBe(true);
      expect(fallback.summary.content).toContain('## Recent Progress');
      expect(fallback.summarizer.kind).toBe('llm-failed');
    }
  });

  it('chains the latest summary into the next one (heuristic: clipped under "## Previous Summary")', () => {
    const service = new MemoryService('s');
    withThreeTurns(service);
    const first = service.compact({ nowMs: 1 });
    withThreeTurns(service);
    const second = service.compact({ nowMs: 2 });
    if (first.kind !== 'compacted' || second.kind !== 'compacted') throw new Error('expected two compactions');
    expect(second.summary.content).toContain(`## Previous Summary\n${first.summary.content.slice(0, 1_500)}`);
    expect(service.state.summaries.map((s) => s.id)).toEqual(['summary-s-1', 'summary-s-2']);
    expect(service.latestSummary()).toBe(second.summary);
    expect(service.getPromptContext().summary).toBe(second.summary.content);
  });

  it('runs the same steps asynchronously, awaiting the LLM after the hook', async () => {
    const order: string[] = [];
    const service = new MemoryService('s', {
      hooks: { preCompact: () => (order.push('pre'), { allowed: true }), postCompact: () => void order.push('post') },
    });
    withThreeTurns(service);
    const result = await service.compactAsync({
      nowMs: 3,
      llm: { model: undefined, summarize: async () => (order.push('llm'), { ok: true, content: 'async summary' }) },
    });
    expect(order).toEqual(['pre', 'llm', 'post']);
    expect(result).toMatchObject({ kind: 'compacted', summary: { content: 'async summary' } });
  });

  it('selects with the service parameters (strict selector, Aug early return)', () => {
    const aug = new MemoryService('s', { params: AUG_ENGINE_PARAMS });
    aug.addMessage('user', 'only prompt', 1);
    for (let i = 0; i < 5; i++) aug.addMessage('assistant', 'reply', 2 + i);
    expect(aug.compact({ nowMs: 9 }).kind).toBe('nothing-to-compact');
    const newest = new MemoryService('s', { params: engineParams() });
    newest.addMessage('user', 'only prompt', 1);
    for (let i = 0; i < 5; i++) newest.addMessage('assistant', 'reply', 2 + i);
    expect(newest.compact({ nowMs: 9 }).kind).toBe('compacted');
  });
});
