/**
 * The committed sessions show the shapes the datasets exist for, read straight from the
 * files: user messages, provider requests, peak and final context, and each scenario's mechanism
 * (RC3/RC4 era formats, the overflow loop, the hook storm, compactions).
 */
import { describe, expect, it } from 'vitest';
import { DATASET_DIR, num, optionalNum, readHome, type HomeSession, type RolloutEvent } from './read-home.js';

const home = readHome(DATASET_DIR);

function session(name: string): HomeSession {
  const s = home.get(name);
  if (s === undefined) throw new Error(`no session titled ${name}`);
  return s;
}

function responses(s: HomeSession): RolloutEvent[] {
  return s.events.filter((e) => e.type === 'model.response');
}

/** Real user messages: one run each; newest runs start with `checkpoint.skipped`, Aug runs at `turn-0`. */
function userMessages(s: HomeSession): number {
  if (s.events.some((e) => e.type === 'checkpoint.skipped'))
    return s.events.filter((e) => e.type === 'checkpoint.skipped').length;
  return s.events.filter((e) => e.type === 'model.request' && e['turnId'] === 'turn-0').length;
}

function peak(s: HomeSession): number {
  return Math.max(...responses(s).map((e) => num(e, 'inputTokens')));
}

function finalPrompt(s: HomeSession): number {
  const all = responses(s);
  const last = all[all.length - 1];
  if (last === undefined) throw new Error('no responses');
  return num(last, 'inputTokens');
}

function at<T>(list: readonly T[], index: number): T {
  const item = list[index < 0 ? list.length + index : index];
  if (item === undefined) throw new Error(`no item at ${index}`);
  return item;
}

function within(actual: number, expected: number, pct: number): boolean {
  return Math.abs(actual - expected) <= (expected * pct) / 100;
}

const AUG_TYPES = new Set([
  'turn.started',
  'turn.aborted',
  'function.call',
  'function.output',
  'compact.occurred',
  'subagent.start',
  'subagent.stop',
  'skill.invoked',
  'hook.triggered',
  'hook.blocked',
  'context.overflow',
  'parse.error',
  'model.request',
  'model.first_token',
  'model.response',
  'model.error',
]);

describe('the token-efficiency rows (engine.md §9.2)', () => {
  it.each([
    ['runaway', '4ba54e41', 'MiniMax-M3', 7, 229, 270_000],
    ['runaway-65f171fa', '65f171fa', 'MiniMax-M3', 8, 300, 201_000],
    ['runaway-08e19c43', '08e19c43', 'gpt-5', 19, 295, 156_000],
  ])(
    '%s: id %s, %s, %i user messages, %i requests, final prompt ≈ %i',
    (name, prefix, model, users, requests, final) => {
      const s = session(name);
      expect(String(s.meta['id']).startsWith(prefix)).toBe(true);
      expect(s.meta['model']).toBe(model);
      expect(userMessages(s)).toBe(users);
      expect(s.store.filter((m) => m.role === 'user' && m.synthetic === undefined)).toHaveLength(users);
      expect(responses(s)).toHaveLength(requests);
      expect(within(finalPrompt(s), final, 2)).toBe(true);
      expect(within(peak(s), final, 5)).toBe(true);
      // Never compacted, no usage in the store (before 2026-08-05), only the Aug rollout's event types.
      expect(s.events.filter((e) => e.type === 'compact.occurred')).toHaveLength(0);
      expect(s.store.every((m) => m.usage === undefined)).toBe(true);
      expect(s.events.every((e) => AUG_TYPES.has(e.type))).toBe(true);
      expect(s.memory).toBeNull();
    },
  );

  it('runaway: 363 assistant messages, tool-part histogram {0:147, 1:216} (§9.1), one call per request', () => {
    const s = session('runaway');
    const assistants = s.store.filter((m) => m.role === 'assistant');
    expect(assistants).toHaveLength(363);
    const histogram = new Map<number, number>();
    for (const m of assistants) {
      const tools = m.parts.filter((p) => p.type === 'tool').length;
      histogram.set(tools, (histogram.get(tools) ?? 0) + 1);
    }
    expect(Object.fromEntries(histogram)).toEqual({ 0: 147, 1: 216 });
    expect(responses(s).every((e) => (e['toolCalls'] as unknown[]).length <= 1)).toBe(true); // test boundary
    expect(String(s.meta['title'])).toMatch(/^runaway/);
    expect(new Date(at(s.events, 0).timestamp).toISOString().slice(0, 10)).toBe('2026-08-04');
  });

  it('Aug generation: turn.started follows model.response, no callId, usage in model.response', () => {
    for (const name of ['runaway', 'runaway-65f171fa', 'runaway-08e19c43', 'cache-bust-pruning']) {
      const s = session(name);
      s.events.forEach((e, i) => {
        if (e.type === 'turn.started') expect(s.events[i - 1]?.type).toBe('model.response');
        if (e.type === 'function.call' || e.type === 'function.output') expect(e['callId']).toBeUndefined();
      });
      expect(responses(s).every((e) => typeof e['inputTokens'] === 'number')).toBe(true);
    }
  });

  it('MiniMax rows reread their prefix only while a microcompacted run keeps it stable (RC3/RC4)', () => {
    const s = session('runaway');
    const all = responses(s);
    const first = num(at(all, 0), 'inputTokens');
    // Outside the two idle (RC3) runs the cache read is the static block plus the first prompt.
    const collapsed = all.filter((e) => num(e, 'cacheReadTokens') <= first).length;
    expect(collapsed / all.length).toBeGreaterThan(0.4);
    const read = all.reduce((n, e) => n + num(e, 'cacheReadTokens'), 0);
    const prompt = all.reduce((n, e) => n + num(e, 'inputTokens'), 0);
    expect(read / prompt).toBeLessThan(0.45);
  });
});

describe('cache-bust-pruning', () => {
  const s = session('cache-bust-pruning');

  it('is a 2026-08-04/05 claude-sonnet-4-5 session with store usage under the old field name', () => {
    expect(s.meta['model']).toBe('claude-sonnet-4-5');
    const days = new Set(responses(s).map((e) => new Date(num(e, 'timestamp')).toISOString().slice(0, 10)));
    expect([...days].every((d) => d === '2026-08-04' || d === '2026-08-05')).toBe(true);
    const withUsage = s.store.filter((m) => m.usage !== undefined);
    expect(withUsage).toHaveLength(responses(s).length);
    expect(
      withUsage.every(
        (m) => m.usage?.['cacheCreationInputTokens'] !== undefined && m.usage['cacheWriteInputTokens'] === undefined,
      ),
    ).toBe(true);
  });

  it('reads collapse to the first prompt while the context grows below the window-only trigger', () => {
    const all = responses(s);
    const first = num(at(all, 0), 'inputTokens');
    const collapsed = all.slice(3).filter((e) => num(e, 'cacheReadTokens') <= first).length;
    expect(collapsed / (all.length - 3)).toBeGreaterThan(0.75);
    expect(peak(s)).toBeLessThan(200_000 - 32_000 - 13_000);
    expect(peak(s)).toBeGreaterThan(100_000);
  });

  it('has no idle gap over five minutes before a user message (RC3 never fires)', () => {
    s.store.forEach((m, i) => {
      const previous = s.store[i - 1];
      if (m.role === 'user' && previous !== undefined) expect(m.timestamp - previous.timestamp).toBeLessThan(300_000);
    });
  });
});

describe('overflow-loop', () => {
  const s = session('overflow-loop');

  it('runs on deepseek-chat in the newest format', () => {
    expect(s.meta['model']).toBe('deepseek-chat');
    expect(s.meta['provider']).toBe('deepseek');
    expect(s.events.some((e) => e.type === 'memory.exposure')).toBe(true);
    expect(responses(s).every((e) => e['cacheWriteTokens'] === undefined)).toBe(true);
  });

  it('overflows, compacts and overflows again three times in one turn, then the turn fails', () => {
    const errors = s.events.filter((e) => e.type === 'model.error');
    expect(
      errors.every(
        (e) => e['kind'] === 'provider' && /context length|context_length_exceeded/.test(String(e['error'])),
      ),
    ).toBe(true);
    // Group by user message (runs start at checkpoint.skipped).
    const runs: RolloutEvent[][] = [];
    for (const e of s.events) {
      if (e.type === 'checkpoint.skipped') runs.push([]);
      runs[runs.length - 1]?.push(e);
    }
    const failing = runs.find((run) => run.filter((e) => e.type === 'compact.occurred').length === 3);
    expect(failing).toBeDefined();
    const kinds = (failing ?? [])
      .filter((e) =>
        ['model.error', 'compact.occurred', 'context.overflow', 'model.response', 'message.steered'].includes(e.type),
      )
      .map((e) => e.type);
    const tail = kinds.slice(kinds.lastIndexOf('model.response') + 1);
    expect(tail).toEqual([
      'model.error',
      'compact.occurred',
      'context.overflow',
      'model.error',
      'model.error',
      'compact.occurred',
      'context.overflow',
      'model.error',
      'message.steered',
      'model.error',
      'compact.occurred',
      'context.overflow',
      'model.error',
      'model.error',
    ]);
    // Each compaction left the prompt above the window: the rejected prompts stay above 128K.
    for (const e of (failing ?? []).filter((x) => x.type === 'model.error')) {
      const requested = Number(/\((\d+) in the messages/.exec(String(e['error']))?.[1]);
      expect(requested).toBeGreaterThan(131_072);
    }
    // The user continues: later runs get answers.
    const after = runs.slice(runs.indexOf(failing ?? []) + 1);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after.every((run) => run.some((e) => e.type === 'model.response'))).toBe(true);
  });

  it('keeps every compaction summary with its token count in memory.json', () => {
    expect(s.memory?.summaries).toHaveLength(s.events.filter((e) => e.type === 'compact.occurred').length);
    for (const summary of s.memory?.summaries ?? [])
      expect(summary.summaryTokenCount).toBe(Math.ceil(summary.content.length / 4));
  });
});

describe('blocked-hook-storm', () => {
  const s = session('blocked-hook-storm');

  it('blocks at the 107K trigger, again only after 5,000 more tokens, and at the first check of each user message', () => {
    let lastMeasured = 0;
    let blockedAt: number | undefined;
    let blocks = 0;
    for (const e of s.events) {
      if (e.type === 'checkpoint.skipped') blockedAt = undefined;
      if (e.type === 'model.response') lastMeasured = num(e, 'inputTokens');
      if (e.type === 'hook.blocked') {
        expect(e['hookName']).toBe('PreCompact');
        expect(String(e['reason']).length).toBeGreaterThan(0);
        expect(lastMeasured).toBeGreaterThanOrEqual(107_000);
        if (blockedAt !== undefined) expect(lastMeasured).toBeGreaterThanOrEqual(blockedAt + 5_000);
        blockedAt = lastMeasured;
        blocks++;
      }
    }
    expect(blocks).toBeGreaterThanOrEqual(8);
    expect(s.events.filter((e) => e.type === 'compact.occurred')).toHaveLength(0);
    expect(peak(s)).toBeLessThan(200_000 - 32_000);
  });

  it('newest format: callId on calls, hook.triggered per call, turn.started before model.request', () => {
    const calls = s.events.filter((e) => e.type === 'function.call');
    expect(calls.every((e) => typeof e['callId'] === 'string')).toBe(true);
    expect(s.events.filter((e) => e.type === 'hook.triggered')).toHaveLength(calls.length);
    s.events.forEach((e, i) => {
      if (e.type === 'model.request') expect(['memory.exposure']).toContain(s.events[i - 1]?.type);
      if (e.type === 'memory.exposure')
        expect(['turn.started', 'context.overflow', 'compact.occurred']).toContain(s.events[i - 1]?.type);
    });
    expect(
      s.store.filter((m) => m.usage !== undefined).every((m) => m.usage?.['cacheWriteInputTokens'] !== undefined),
    ).toBe(true);
  });
});

describe('healthy', () => {
  const s = session('healthy');

  it('compacts two or three times, each at 107K measured, and the next request reads only the static block', () => {
    const compactions = s.events.filter((e) => e.type === 'compact.occurred');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(compactions.length).toBeLessThanOrEqual(3);
    // The first request wrote everything: the static block plus the first prompt.
    const firstPrompt = num(at(responses(s), 0), 'cacheWriteTokens');
    for (const c of compactions) {
      const i = s.events.indexOf(c);
      const before = s.events
        .slice(0, i)
        .filter((e) => e.type === 'model.response')
        .pop();
      const after = s.events.slice(i).find((e) => e.type === 'model.response');
      if (before === undefined || after === undefined) throw new Error('compaction without requests around it');
      expect(num(before, 'inputTokens')).toBeGreaterThanOrEqual(107_000);
      expect(num(after, 'inputTokens')).toBeLessThan(num(before, 'inputTokens') / 2);
      expect(num(after, 'cacheReadTokens')).toBeLessThan(firstPrompt);
      expect(num(after, 'cacheReadTokens')).toBeGreaterThan(0);
      expect(optionalNum(c, 'afterTokens')).toBeDefined();
    }
    expect(s.memory?.summaries).toHaveLength(compactions.length);
    expect(s.memory?.summaries.every((x) => x.content.startsWith('## Goal'))).toBe(true);
  });

  it('keeps cache reads high and the store trimmed to the last user turns', () => {
    const all = responses(s);
    const read = all.reduce((n, e) => n + num(e, 'cacheReadTokens'), 0);
    const prompt = all.reduce((n, e) => n + num(e, 'inputTokens'), 0);
    expect(read / prompt).toBeGreaterThan(0.85);
    expect(s.store.filter((m) => m.role === 'user').length).toBeLessThan(14);
    expect(userMessages(s)).toBe(14);
    expect(s.store[0]?.role).toBe('user');
  });
});

describe('every session', () => {
  it('has 20-character rollout ids, contiguous seq, one aggregateID, and turn ids restarting at turn-0', () => {
    for (const s of home.values()) {
      s.events.forEach((e, i) => {
        expect(e.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{20}$/);
        expect(e.seq).toBe(i + 1);
        expect(e.aggregateID).toBe(s.meta['id']);
      });
      expect(
        s.events.filter((e) => e.type === 'model.request' && e['turnId'] === 'turn-0').length,
      ).toBeGreaterThanOrEqual(userMessages(s));
    }
  });

  it('has UUID message ids and a store whose first line is a user message', () => {
    for (const s of home.values()) {
      expect(s.store[0]?.role).toBe('user');
      for (const m of s.store)
        expect(m.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
