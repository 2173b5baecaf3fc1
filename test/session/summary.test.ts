import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Item, Request, Session } from '../../src/session/model.js';
import { summarizeSession } from '../../src/session/summary.js';
import { loadOne } from '../ingest/freecode/load.js';

describe('summarizeSession', () => {
  it('summarizes the engine.md §12 session (totals as in its usage.json, §12.4)', async () => {
    const session = await loadOne('test/fixtures/freecode/home-newest');
    expect(summarizeSession(session)).toEqual({
      sessionId: '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34',
      source: 'freecode',
      models: ['claude-sonnet-4-5'],
      userMessages: 3,
      requests: 4,
      requestsWithoutUsage: 0,
      promptTokens: 51480,
      cacheReadTokens: 37440,
      cacheWriteTokens: 13400,
      outputTokens: 536,
      peakContextTokens: 13400,
      compactions: 1,
      overflows: 0,
      issues: 0,
    });
  });

  it('leaves token totals unknown (null), not zero, when no request has measured usage', async () => {
    const row = summarizeSession(await loadOne('test/fixtures/freecode/old-store'));
    expect(row).toMatchObject({
      requests: 0,
      requestsWithoutUsage: 5,
      userMessages: 2,
      promptTokens: null,
      cacheReadTokens: null,
      outputTokens: null,
      peakContextTokens: null,
      models: ['MiniMax-M3'],
    });
  });

  it('counts side traffic in requests and tokens but not in the peak context, and pokes not as user messages', async () => {
    const row = summarizeSession(await loadOne('test/fixtures/freecode/rollout-only'));
    expect(row).toMatchObject({
      requests: 8,
      userMessages: 3,
      promptTokens: 20000 + 21000 + 21100 + 21300 + 3000 + 21500 + 21700 + 15000,
      peakContextTokens: 21700,
      models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
      compactions: 2,
      overflows: 1,
      issues: 1,
    });
  });

  // Deliberate bugs checked once: taking the peak over side requests too, and counting synthetic
  // user items as user messages, each make this property fail.
  it('agrees with a direct count over any requests and items', () => {
    const usage = fc
      .record({ uncached: fc.nat(5000), read: fc.nat(5000), write: fc.nat(5000), output: fc.nat(500) })
      .map((u) => ({
        promptTokens: u.uncached + u.read + u.write,
        uncachedInputTokens: u.uncached,
        cacheReadTokens: u.read,
        cacheWriteTokens: u.write,
        cacheWrite5mTokens: null,
        cacheWrite1hTokens: null,
        outputTokens: u.output,
        reasoningTokens: null,
      }));
    const request = fc.record({
      usage: fc.option(usage, { nil: null }),
      agentId: fc.constantFrom(null, null, 'memory:extraction'),
      model: fc.constantFrom('a', 'b'),
    });
    const user = fc.constantFrom(null, null, 'auto_poke', 'steer');
    fc.assert(
      fc.property(fc.array(request, { maxLength: 12 }), fc.array(user, { maxLength: 6 }), (drafts, synthetics) => {
        const requests: Request[] = drafts.map((d, index) => ({
          index,
          itemIndex: 0,
          provider: null,
          timestampMs: null,
          ...d,
        }));
        const items: Item[] = synthetics.map((synthetic, i) => ({
          kind: 'user',
          id: `u${i}`,
          timestampMs: null,
          text: null,
          chars: 1,
          imageParts: 0,
          imageChars: 0,
          synthetic,
        }));
        const session: Session = {
          id: 's',
          source: 'freecode',
          title: null,
          project: null,
          files: [],
          items,
          requests,
          events: [],
          issues: [],
          parentSessionId: null,
          totalsOnly: null,
        };
        const row = summarizeSession(session);
        const measured = requests.flatMap((r) => (r.usage === null ? [] : [r.usage]));
        const main = requests.flatMap((r) => (r.usage === null || r.agentId !== null ? [] : [r.usage.promptTokens]));
        expect(row.requests).toBe(measured.length);
        expect(row.requestsWithoutUsage).toBe(requests.length - measured.length);
        expect(row.userMessages).toBe(synthetics.filter((s) => s === null).length);
        expect(row.peakContextTokens).toBe(main.length === 0 ? null : Math.max(...main));
        if (measured.length === 0) {
          expect(row.promptTokens).toBeNull();
        } else {
          const uncached = measured.reduce((sum, u) => sum + u.uncachedInputTokens, 0);
          expect(row.promptTokens).toBe(uncached + (row.cacheReadTokens ?? 0) + (row.cacheWriteTokens ?? 0));
        }
        expect(row.models).toEqual([...new Set(requests.map((r) => r.model))]);
      }),
    );
  });
});
