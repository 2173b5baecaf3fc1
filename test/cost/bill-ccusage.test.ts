/**
 * Where cachecost's bill differs from ccusage on purpose (replay.md §3), each difference named and
 * computed here, not hard-coded: an independent reader of the real Claude Code logs (a few dozen
 * lines, a different code path from the adapter) and hand-written usage for the pricing rules.
 * `bench/ccusage-compare.mjs` runs ccusage 20.0.24 itself on the same logs (network needed).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run.js';
import { REAL_LOGS, describeWithShared } from '../support/shared.js';
import { bill, micro, session, usage } from './bill-support.js';

const CLAUDE_LOGS = join(REAL_LOGS, 'claude-code');

type Usage = {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  write5m: number | null;
  write1h: number | null;
};
type Totals = {
  requests: number;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  write1h: number;
  unknownTtl: number;
};

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonlFiles(path) : name.endsWith('.jsonl') ? [path] : [];
  });
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/**
 * The independent reader: every assistant line with usage (not `<synthetic>`, not an API error),
 * one response per (message.id, requestId) — message.id alone without a requestId — across all
 * files, keeping the first, the last, or the largest line of each response. Per session.
 */
function readClaudeLogs(keep: 'first' | 'last' | 'largest'): Map<string, Totals> {
  const responses = new Map<string, { sessionId: string; usage: Usage }>();
  for (const file of jsonlFiles(join(CLAUDE_LOGS, 'projects')).sort()) {
    for (const text of readFileSync(file, 'utf8').split('\n')) {
      let line: {
        type?: unknown;
        sessionId?: unknown;
        requestId?: unknown;
        isApiErrorMessage?: unknown;
        message?: { id?: unknown; model?: unknown; usage?: Record<string, unknown> };
      };
      try {
        line = JSON.parse(text) as typeof line; // a test-side reader: shape checked field by field below
      } catch {
        continue;
      }
      const u = line.message?.usage;
      if (
        line.type !== 'assistant' ||
        u === undefined ||
        line.message?.model === '<synthetic>' ||
        line.isApiErrorMessage === true
      )
        continue;
      const split = u['cache_creation'] as Record<string, unknown> | undefined; // same: optional object
      const next: Usage = {
        input: num(u['input_tokens']),
        output: num(u['output_tokens']),
        cacheCreation: num(u['cache_creation_input_tokens']),
        cacheRead: num(u['cache_read_input_tokens']),
        write5m: split === undefined ? null : num(split['ephemeral_5m_input_tokens']),
        write1h: split === undefined ? null : num(split['ephemeral_1h_input_tokens']),
      };
      const key =
        typeof line.requestId === 'string' && line.requestId !== ''
          ? `${String(line.message?.id)}:${line.requestId}`
          : String(line.message?.id);
      const before = responses.get(key);
      const total = (x: Usage) => x.input + x.output + x.cacheCreation + x.cacheRead;
      const take = before === undefined || keep === 'last' || (keep === 'largest' && total(next) > total(before.usage));
      if (take) responses.set(key, { sessionId: String(line.sessionId), usage: next });
    }
  }
  const sessions = new Map<string, Totals>();
  for (const { sessionId, usage: u } of responses.values()) {
    const t = sessions.get(sessionId) ?? {
      requests: 0,
      input: 0,
      output: 0,
      cacheCreation: 0,
      cacheRead: 0,
      write1h: 0,
      unknownTtl: 0,
    };
    t.requests += 1;
    t.input += u.input;
    t.output += u.output;
    t.cacheCreation += u.cacheCreation;
    t.cacheRead += u.cacheRead;
    t.write1h += u.write1h ?? 0;
    t.unknownTtl += u.write5m === null ? u.cacheCreation : 0;
    sessions.set(sessionId, t);
  }
  return sessions;
}

describeWithShared(
  'cachecost vs ccusage on the real Claude Code logs: the differences on purpose',
  () => {
    const last = readClaudeLogs('last');
    const first = readClaudeLogs('first');
    const largest = readClaudeLogs('largest');

    it('difference 1, last-line dedupe: a response written as several lines is counted once with its LAST line; a first-line reader (ccusage TypeScript releases) undercounts output only', () => {
      expect(last.size).toBeGreaterThan(0);
      let undercounted = 0;
      for (const [id, l] of last) {
        const f = first.get(id);
        // Input and cache counters repeat on every line of a response (formats.md §1.4).
        expect([f?.requests, f?.input, f?.cacheCreation, f?.cacheRead], id).toEqual([
          l.requests,
          l.input,
          l.cacheCreation,
          l.cacheRead,
        ]);
        expect(f?.output ?? 0).toBeLessThanOrEqual(l.output);
        if ((f?.output ?? 0) < l.output) undercounted += 1;
      }
      expect(undercounted).toBeGreaterThan(0);
    });

    it('ccusage 20.x keeps the largest line of a response: on these 1.0.x logs that is the last line, so its token totals equal ours', () => {
      for (const [id, l] of last) expect(largest.get(id), id).toEqual(l);
    });

    it('difference 2, 1h writes: ccusage has one cache-creation column; cachecost splits it into 5m, 1h and unknown TTL, which add up to it', async () => {
      for (const l of last.values()) expect(l.write1h + l.unknownTtl).toBeLessThanOrEqual(l.cacheCreation);
      // Priced: 1h at 2x input, 5m at 1.25x, a write without a split at the 5m rate (claude-sonnet-4-5, $3 input).
      const s = session('ttl', null, [
        { model: 'claude-sonnet-4-5', at: '2026-01-01T00:00:00Z', usage: usage({ w5m: 1_000, w1h: 1_000 }) },
        { model: 'claude-sonnet-4-5', at: '2026-01-01T00:01:00Z', usage: usage({ w5m: 1_000, split: false }) },
      ]);
      const { total } = await bill([s], 'session');
      expect([total.cacheWrite5mTokens, total.cacheWrite1hTokens, total.cacheWriteUnknownTtlTokens]).toEqual([
        1_000, 1_000, 1_000,
      ]);
      expect(total.cost?.picoUsd).toBe(micro(3_750 + 6_000 + 3_750));
    });

    it('cachecost report --by session agrees with the independent last-line reader on every real session', async () => {
      const { code, stdout } = await cli(['report', CLAUDE_LOGS, '--by', 'session', '--json']);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        lines: {
          key: string;
          requests: number;
          uncachedInputTokens: number;
          outputTokens: number;
          cacheReadTokens: number;
          cacheWrite5mTokens: number;
          cacheWrite1hTokens: number;
          cacheWriteUnknownTtlTokens: number;
        }[];
      };
      const got = new Map(report.lines.map((l) => [l.key, l]));
      for (const [id, l] of last) {
        if (l.requests === 0) continue;
        const r = got.get(id);
        expect(r, id).toBeDefined();
        expect([r?.requests, r?.uncachedInputTokens, r?.outputTokens, r?.cacheReadTokens], id).toEqual([
          l.requests,
          l.input,
          l.output,
          l.cacheRead,
        ]);
        expect(
          (r?.cacheWrite5mTokens ?? 0) + (r?.cacheWrite1hTokens ?? 0) + (r?.cacheWriteUnknownTtlTokens ?? 0),
          id,
        ).toBe(l.cacheCreation);
        expect(r?.cacheWrite1hTokens, id).toBe(l.write1h);
        expect(r?.cacheWriteUnknownTtlTokens, id).toBe(l.unknownTtl);
      }
    });
  },
  CLAUDE_LOGS,
);

describe('cachecost vs ccusage: the pricing differences on purpose', () => {
  it('difference 3, request-level long context: above 200K the WHOLE request is at the tier; ccusage tiers each token class separately above 200K', async () => {
    // 250,000 cache reads on claude-sonnet-4-5 (read $0.30, tier $0.60):
    // cachecost: 250,000 × 0.60 = 150,000 µ$; ccusage 20.0.24: 200,000 × 0.30 + 50,000 × 0.60 = 90,000 µ$.
    // 195,000 reads + 10,000 5m writes + 10 input = 205,010: cachecost bills all at the tier; ccusage none (no class > 200K).
    const s = session('lc', null, [
      { model: 'claude-sonnet-4-5', at: '2026-01-01T00:00:00Z', usage: usage({ read: 250_000 }) },
      {
        model: 'claude-sonnet-4-5',
        at: '2026-01-01T00:01:00Z',
        usage: usage({ uncached: 10, read: 195_000, w5m: 10_000 }),
      },
    ]);
    const { total } = await bill([s], 'session');
    // cachecost: 150,000 + (10 × 6 + 195,000 × 0.6 + 10,000 × 7.5 = 60 + 117,000 + 75,000) = 342,060 µ$.
    expect(total.cost?.picoUsd).toBe(micro(342_060));
    expect(total.longContextRequests).toBe(2);
    // ccusage-style per-class tiering of the same usage: 90,000 + (10 × 3 + 195,000 × 0.3 + 10,000 × 3.75) = 186,030 µ$.
    const perClass = (tokens: number, rateMicro: number, tierRateMicro: number) =>
      Math.min(tokens, 200_000) * rateMicro + Math.max(0, tokens - 200_000) * tierRateMicro;
    // Rates ×10 (in tenths of a µ$ per token) keep the arithmetic integral: $0.30/MTok = 0.3 µ$/token → 3.
    const theirsTenths =
      perClass(250_000, 3, 6) + perClass(10, 30, 60) + perClass(195_000, 3, 6) + perClass(10_000, 37.5, 75);
    expect(theirsTenths / 10).toBe(186_030);
  });
});
