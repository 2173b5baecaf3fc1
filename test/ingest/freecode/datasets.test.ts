/**
 * Integration test of the FreeCode reader: the generated sessions of datasets/freecode, read by the FreeCode
 * ingest, have the shapes datasets/README.md promises (user messages, requests, peak context within
 * 5%, compactions, overflows, hook blocks) and read without a single ingest issue.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forEachSession } from '../../../src/usecases/for-each-session.js';
import type { IngestIssue, Session } from '../../../src/session/model.js';
import { summarizeSession } from '../../../src/session/summary.js';

const DATASETS = join(import.meta.dirname, '..', '..', '..', 'datasets', 'freecode');
const sessions = new Map<string, Session>();
let issues: readonly IngestIssue[] = [];

beforeAll(async () => {
  issues = await forEachSession([DATASETS], { content: 'sizes' }, (session) => {
    sessions.set((session.title ?? session.id).split(':')[0] ?? session.id, session);
  });
}, 60_000);

function get(name: string): Session {
  const session = sessions.get(name);
  if (session === undefined) throw new Error(`${name} is not in datasets/freecode`);
  return session;
}

const within5Pct = (actual: number | null, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? 0) - expected) / expected).toBeLessThanOrEqual(0.05);
};

describe('datasets/freecode through the FreeCode ingest', () => {
  it('reads all seven sessions without an ingest issue', () => {
    expect(sessions.size).toBe(7);
    expect(issues).toEqual([]);
  });

  it('the token-efficiency rows (engine.md §9.2): user messages, round trips, history size', () => {
    const rows: ReadonlyArray<readonly [string, number, number, number]> = [
      ['runaway', 7, 229, 270_000],
      ['runaway-65f171fa', 8, 300, 201_000],
      ['runaway-08e19c43', 19, 295, 156_000],
    ];
    for (const [name, userMessages, requests, peak] of rows) {
      const row = summarizeSession(get(name));
      expect(row.userMessages, name).toBe(userMessages);
      expect(row.requests, name).toBe(requests);
      within5Pct(row.peakContextTokens, peak);
      expect(row.compactions, name).toBe(0);
    }
    // 363 assistant messages in 229 round trips, one tool call per request (§9.1's histogram).
    const runaway = get('runaway');
    expect(runaway.items.filter((item) => item.kind === 'assistant')).toHaveLength(363);
    expect(runaway.items.filter((item) => item.kind === 'assistant' && item.toolCalls.length > 1)).toHaveLength(0);
  });

  it('overflow-loop records overflow compactions and rejected sends', () => {
    const session = get('overflow-loop');
    const compactions = session.events.filter((e) => e.kind === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    expect(compactions.every((e) => e.kind === 'compaction' && e.trigger === 'overflow')).toBe(true);
    expect(session.events.filter((e) => e.kind === 'overflow').length).toBeGreaterThanOrEqual(3);
    expect(session.events.filter((e) => e.kind === 'model_error').length).toBeGreaterThanOrEqual(4);
  });

  it('blocked-hook-storm records PreCompact blocks and no compaction', () => {
    const session = get('blocked-hook-storm');
    expect(session.events.filter((e) => e.kind === 'hook_block' && e.hookName === 'PreCompact').length).toBeGreaterThan(
      5,
    );
    expect(session.events.filter((e) => e.kind === 'compaction')).toHaveLength(0);
  });

  it('healthy compacts with summaries from memory.json; cache-bust-pruning never compacts', () => {
    const healthy = get('healthy');
    const compactions = healthy.events.filter((e) => e.kind === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(
      compactions.every((e) => e.kind === 'compaction' && e.summaryItemId !== null && e.tokenUnit === 'estimate'),
    ).toBe(true);
    expect(get('cache-bust-pruning').events.filter((e) => e.kind === 'compaction')).toHaveLength(0);
  });
});
