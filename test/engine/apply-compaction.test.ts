import { describe, expect, it } from 'vitest';
import {
  ArraySessionStore,
  MemoryService,
  applyCompaction,
  carryCodemodeStore,
  engineParams,
} from '../../src/engine/index.js';
import type { CompactionResult, Compactor, HistoryMessage } from '../../src/engine/index.js';
import { assistant, text, user } from './support/messages.js';

const stored = (): HistoryMessage[] => [
  user('u1'),
  assistant('a1', [text('one')]),
  user('u2'),
  assistant('a2', [text('two')]),
  user('u3'),
  assistant('a3', [text('three')]),
];

const fixed = (result: CompactionResult): Compactor => ({ compact: () => result });
const base = { preservedMessageIds: [], compactedMessageIds: [], tokenCountBefore: 900, tokenCountAfter: 900 };

describe('applyCompaction (engine.md §2.4)', () => {
  it('reports "nothing to compact" and leaves the store alone', () => {
    const store = new ArraySessionStore(stored());
    const result = applyCompaction({
      memory: fixed({ ...base, kind: 'nothing-to-compact', success: true }),
      store,
      compactOptions: { nowMs: 1 },
    });
    expect(result).toMatchObject({
      compacted: false,
      reason: 'nothing to compact',
      tokensBefore: 900,
      tokensAfter: 900,
      messagesBefore: 0,
      messagesAfter: 0,
    });
    expect(store.replaceCount).toBe(0);
  });

  it('reports a block with the hook reason, or the newest fallback reason, or undefined (Aug)', () => {
    const blocked = (reason: string | undefined): CompactionResult => ({
      ...base,
      kind: 'blocked',
      success: false,
      blocked: true,
      reason,
    });
    const store = new ArraySessionStore(stored());
    expect(
      applyCompaction({ memory: fixed(blocked('hook says no')), store, compactOptions: { nowMs: 1 } }),
    ).toMatchObject({ compacted: false, reason: 'hook says no' });
    expect(applyCompaction({ memory: fixed(blocked(undefined)), store, compactOptions: { nowMs: 1 } })).toMatchObject({
      compacted: false,
      reason: 'blocked by a PreCompact hook',
    });
    expect(
      applyCompaction({ memory: fixed(blocked(undefined)), store, compactOptions: { nowMs: 1 }, version: 'aug' }),
    ).toMatchObject({ compacted: false, reason: undefined });
    expect(store.replaceCount).toBe(0);
  });

  it('after a real compaction trims the store to the last 2 user turns and counts messages', () => {
    const memory = new MemoryService('s', { params: engineParams() });
    for (const role of ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'] as const)
      memory.addMessage(role, 'x'.repeat(40), 1);
    const store = new ArraySessionStore(stored());
    const before = store.getMessages();
    const result = applyCompaction({ memory, store, compactOptions: { nowMs: 1 } });
    expect(result).toMatchObject({ compacted: true, messagesBefore: 6, messagesAfter: 4 });
    expect(store.getMessages()).toEqual(before.slice(2));
    expect(store.getMessages()[0]).toBe(before[2]);
  });

  it('does not rewrite the store when the trim keeps everything, yet reports the compaction', () => {
    const memory = new MemoryService('s');
    for (const role of ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'] as const)
      memory.addMessage(role, 'x'.repeat(40), 1);
    const store = new ArraySessionStore([user('u1'), assistant('a1', [text('x')])]);
    expect(applyCompaction({ memory, store, compactOptions: { nowMs: 1 } })).toMatchObject({
      compacted: true,
      messagesBefore: 2,
      messagesAfter: 2,
    });
    expect(store.replaceCount).toBe(0);
  });
});

describe('carryCodemodeStore (newest §2.4 step 4)', () => {
  const withSnapshot = (message: HistoryMessage, snapshot: string): HistoryMessage => ({
    ...message,
    parts: message.parts.map((part, i) => (i === 0 ? { ...part, codemodeStore: snapshot } : part)),
  });

  it('copies the newest dropped snapshot onto the first part of the first preserved message', () => {
    const history = [
      withSnapshot(user('u1'), 'old'),
      withSnapshot(assistant('a1', [text('x')]), 'new'),
      user('u2'),
      assistant('a2', [text('y')]),
    ];
    const carried = carryCodemodeStore(history, history.slice(2));
    expect(carried[0]?.parts[0]?.codemodeStore).toBe('new');
    expect(carried[1]).toBe(history[3]);
    expect(history[2]?.parts[0]?.codemodeStore).toBeUndefined();
  });

  it('leaves the tail alone when it already has a snapshot or nothing was dropped with one', () => {
    const history = [withSnapshot(user('u1'), 'old'), withSnapshot(user('u2'), 'mine'), assistant('a2', [text('y')])];
    expect(carryCodemodeStore(history, history.slice(1))).toEqual(history.slice(1));
    const plain = [user('u1'), user('u2')];
    expect(carryCodemodeStore(plain, plain.slice(1))[0]).toBe(plain[1]);
  });

  it('is applied by applyCompaction (newest) but not by the Aug version', () => {
    const history = [
      withSnapshot(user('u1'), 'snap'),
      assistant('a1', [text('x')]),
      user('u2'),
      assistant('a2', [text('y')]),
      user('u3'),
    ];
    const compacted: CompactionResult = {
      ...base,
      kind: 'compacted',
      success: true,
      summarizer: { kind: 'heuristic' },
      summary: {
        id: 's',
        createdAt: 1,
        originalMessageCount: 1,
        originalTokenCount: 1,
        summaryTokenCount: 1,
        content: 'c',
      },
    };
    const newest = new ArraySessionStore(history);
    applyCompaction({ memory: fixed(compacted), store: newest, compactOptions: { nowMs: 1 } });
    expect(newest.getMessages()[0]?.parts[0]?.codemodeStore).toBe('snap');
    const aug = new ArraySessionStore(history);
    applyCompaction({ memory: fixed(compacted), store: aug, compactOptions: { nowMs: 1 }, version: 'aug' });
    expect(aug.getMessages()[0]).toBe(history[2]);
  });
});
