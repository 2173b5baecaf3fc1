import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';
import {
  NO_PRUNING_POLICY,
  PREFIX_STABLE_AUG_POLICY,
  PREFIX_STABLE_NEWEST_POLICY,
} from '../../src/simulate/recorded-policy.js';
import type { ModelFacts, ReplayInput } from '../../src/simulate/replay.js';
import { repriceReplay, replaySession } from '../../src/simulate/replay.js';
import type { Scenario, ScenarioFamily } from '../../src/simulate/scenario.js';
import { buildScenarios, familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { SessionBuilder } from './session-builder.js';

/** One token per character and a 2,000-token static block: sizes are computable by hand. */
const UNIT: TokenCalibration = { tokensPerChar: 1, staticBlockTokens: 2_000, source: 'fitted', points: 0 };
const FACTS: ModelFacts = { contextWindowTokens: 200_000, maxOutputTokens: 64_000, rules: CACHE_RULES.anthropic };

function scenario(family: ScenarioFamily, overrides: Partial<Scenario['params']> = {}): Scenario {
  return { name: family, family, params: { ...familyDefaults(family), summarizer: 'heuristic', ...overrides } };
}

function input(session: ReplayInput['session'], s: Scenario, facts: ModelFacts = FACTS): ReplayInput {
  return {
    session,
    scenario: s,
    calibration: UNIT,
    recordedPolicy: NO_PRUNING_POLICY,
    modelFacts: () => facts,
    preCompactHookBlocks: false,
  };
}

describe('replaySession', () => {
  it('carries every earlier item: prompt = static block + history, cache reads the previous prompt', () => {
    const session = new SessionBuilder()
      .user(500)
      .request({ textChars: 100, tool: { argsChars: 50, resultChars: 1_000 } })
      .request({ textChars: 200 })
      .build();
    const { rows } = replaySession(input(session, scenario('none')));
    expect(rows.map((row) => row.promptTokens)).toEqual([2_500, 2_500 + 150 + 1_000]);
    // Request 2 reads request 1's whole prompt (an entry at its end) and writes the rest.
    expect(rows[1]).toMatchObject({ cacheReadTokens: 2_500, cacheWrite5mTokens: 1_150, uncachedInputTokens: 0 });
  });

  it('compacts under freecode once the measured prompt reaches min(window, target) − buffer, not before', () => {
    const builder = new SessionBuilder().user(100);
    // Each round trip adds 20,100 tokens; the fifth request's prompt is the first at or above 107,000.
    for (let i = 0; i < 8; i++)
      builder.user(100).request({ textChars: 100, tool: { argsChars: 0, resultChars: 20_000 } });
    const session = builder.build();
    const freecode = replaySession(input(session, scenario('freecode')));
    const none = replaySession(input(session, scenario('none')));
    const first = freecode.compactions.find((c) => c.compacted);
    expect(first).toBeDefined();
    const before = none.rows[(first?.rowIndex ?? 0) - 1];
    expect(before?.promptTokens).toBeGreaterThanOrEqual(107_000);
    expect(none.rows[(first?.rowIndex ?? 0) - 2]?.promptTokens).toBeLessThan(107_000);
    expect(none.compactions).toHaveLength(0);
    const total = (rows: typeof none.rows) => rows.reduce((sum, row) => sum + row.promptTokens, 0);
    expect(total(freecode.rows)).toBeLessThan(total(none.rows));
    // The next request after a compaction misses the cache except for the static block.
    const next = freecode.rows[first?.rowIndex ?? 0];
    expect(next?.compactionBefore).toBe(true);
    expect(next?.cacheReadTokens).toBe(2_000);
  });

  it('a tool result that alone exceeds the window: compact and retry, then guard 3 fails the turn (engine.md §5.4)', () => {
    const small: ModelFacts = { ...FACTS, contextWindowTokens: 50_000, maxOutputTokens: 8_000 };
    const builder = new SessionBuilder();
    for (let i = 0; i < 4; i++)
      builder.user(3_000).request({ textChars: 50, tool: { argsChars: 0, resultChars: 2_000 } });
    builder
      .user(100)
      .request({ textChars: 10, tool: { argsChars: 0, resultChars: 60_000 } })
      .request({ textChars: 10 });
    const session = builder.build();
    const result = replaySession(input(session, scenario('freecode'), small));
    // The first overflow compaction summarizes the older turns; the re-send still overflows; the
    // next attempt's compaction finds nothing left to summarize, so the original error fails the turn.
    expect(result.rows.map((row) => row.kind)).toEqual([
      ...Array(5).fill('request'),
      'rejected_overflow',
      'rejected_overflow',
      'rejected_overflow',
    ]);
    expect(result.compactions.map((c) => [c.trigger, c.compacted])).toEqual([
      ['overflow', true],
      ['overflow', false],
    ]);
    expect(result.failedTurns).toBe(1);
    expect(result.overflows).toBe(3);
    // A rejected send bills nothing.
    for (const row of result.rows.filter((r) => r.kind === 'rejected_overflow')) {
      expect(row.cacheReadTokens + row.cacheWrite5mTokens + row.uncachedInputTokens + row.outputTokens).toBe(0);
    }
  });

  it('is deterministic and keeps prompt = read + writes + uncached on every priced row', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            user: fc.integer({ min: 1, max: 3_000 }),
            result: fc.integer({ min: 0, max: 40_000 }),
            gapMs: fc.integer({ min: 0, max: 900_000 }),
          }),
          {
            minLength: 1,
            maxLength: 25,
          },
        ),
        fc.constantFrom<ScenarioFamily>('recorded', 'freecode', 'window-only', 'none'),
        (turns, family) => {
          const builder = new SessionBuilder();
          for (const turn of turns)
            builder
              .wait(turn.gapMs)
              .user(turn.user)
              .request({ textChars: 40, tool: { argsChars: 20, resultChars: turn.result } });
          const session = builder.build();
          const s = scenario(family);
          const a = replaySession({ ...input(session, s), recordedPolicy: PREFIX_STABLE_NEWEST_POLICY });
          const b = replaySession({ ...input(session, s), recordedPolicy: PREFIX_STABLE_NEWEST_POLICY });
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
          for (const row of a.rows) {
            if (row.kind === 'rejected_overflow') continue;
            expect(
              row.cacheReadTokens + row.cacheWrite5mTokens + row.cacheWrite1hTokens + row.uncachedInputTokens,
            ).toBe(row.promptTokens);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('buildScenarios', () => {
  it('always puts recorded first and makes one scenario per target', () => {
    const names = buildScenarios(['freecode', 'none'], { targetTokens: [80_000, 120_000] }).map((s) => s.name);
    expect(names).toEqual(['recorded', 'freecode@80000', 'freecode@120000', 'none']);
  });
});

describe('repriceReplay', () => {
  it('pricing a kept replay under another TTL equals replaying under that TTL', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            user: fc.integer({ min: 1, max: 3_000 }),
            result: fc.integer({ min: 0, max: 30_000 }),
            gapMs: fc.integer({ min: 0, max: 4_000_000 }),
          }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        fc.constantFrom<ScenarioFamily>('recorded', 'freecode', 'none'),
        fc.constantFrom(0, 500, 1_000_000),
        (turns, family, warm) => {
          const builder = new SessionBuilder();
          for (const turn of turns)
            builder
              .wait(turn.gapMs)
              .user(turn.user)
              .request({ textChars: 40, tool: { argsChars: 20, resultChars: turn.result } });
          const session = builder.build();
          const base = { ...input(session, scenario(family)), warmStaticTokens: warm };
          const kept = replaySession({
            ...base,
            scenario: scenario(family, { ttl: '5m', ttlFromLog: false }),
            keepPrompts: true,
          });
          const direct = replaySession({ ...base, scenario: scenario(family, { ttl: '1h', ttlFromLog: false }) });
          const repriced = repriceReplay(kept, { ttl: '1h', fromLog: false }, warm);
          expect(JSON.stringify(repriced.rows)).toBe(JSON.stringify(direct.rows));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('engine generation', () => {
  it('replays a log of the Aug generation with the Aug engine, not the newest (engine.md §2.2, §4.3, §4.4, §5.1)', () => {
    const builder = new SessionBuilder().user(100);
    for (let i = 0; i < 10; i++)
      builder.user(300).request({ textChars: 300, tool: { argsChars: 3_000, resultChars: 20_000 } });
    const session = builder.build();
    // window-only replays the agent as it ran; a small window makes it compact.
    const run = (policy: typeof PREFIX_STABLE_NEWEST_POLICY) =>
      replaySession({ ...input(session, scenario('window-only', { windowTokens: 120_000 })), recordedPolicy: policy });
    const newest = run(PREFIX_STABLE_NEWEST_POLICY);
    const aug = run(PREFIX_STABLE_AUG_POLICY);
    expect(newest.compactions.some((c) => c.compacted)).toBe(true);
    // The Aug memory truncates each tool output to 2,000 chars where newest keeps a 4,000-char
    // transcript per turn: the summaries, and so the prompts after a compaction, differ.
    const summaries = (r: typeof newest) => r.compactions.map((c) => c.summaryTokens);
    expect(summaries(aug)).not.toEqual(summaries(newest));
  });
});

describe('recorded cache-write TTLs', () => {
  const usage1h = (prompt: number) => ({
    promptTokens: prompt,
    uncachedInputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: prompt,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: prompt,
    outputTokens: 10,
    reasoningTokens: null,
  });
  const session = new SessionBuilder()
    .user(500)
    .request({ textChars: 100, usage: usage1h(2_500) })
    .wait(30 * 60 * 1000)
    .user(100)
    .request({ textChars: 100, usage: usage1h(2_700) })
    .build();

  it('writes at the TTL the log shows and keeps the entry alive for it; scenarios inherit it', () => {
    for (const family of ['recorded', 'none'] as const) {
      const { rows } = replaySession(input(session, scenario(family)));
      expect(rows[0]).toMatchObject({ cacheWrite5mTokens: 0, cacheWrite1hTokens: 2_500 });
      // 30 minutes later the 1-hour entry is still there.
      expect(rows[1]?.cacheReadTokens).toBe(2_500);
    }
  });

  it('--ttl overrides the log', () => {
    const { rows } = replaySession(input(session, scenario('none', { ttl: '5m', ttlFromLog: false })));
    expect(rows[0]).toMatchObject({ cacheWrite5mTokens: 2_500, cacheWrite1hTokens: 0 });
    expect(rows[1]?.cacheReadTokens).toBe(0);
  });

  it('splits a write in the proportion the log shows', () => {
    const split = new SessionBuilder()
      .user(500)
      .request({ textChars: 100, usage: { ...usage1h(2_500), cacheWrite5mTokens: 2_000, cacheWrite1hTokens: 500 } })
      .build();
    const { rows } = replaySession(input(split, scenario('recorded')));
    expect(rows[0]).toMatchObject({ cacheWrite5mTokens: 2_000, cacheWrite1hTokens: 500 });
  });
});

describe('FreeCode reload break (engine.md §5.6, §13.9)', () => {
  /** Run 1: a tool-using response, then a text one; run 2 starts with a new user message. */
  const session = (reads: readonly [number, number, number] | null) => {
    const usage = (prompt: number, read: number) => ({
      promptTokens: prompt,
      uncachedInputTokens: 0,
      cacheReadTokens: read,
      cacheWriteTokens: prompt - read,
      cacheWrite5mTokens: prompt - read,
      cacheWrite1hTokens: 0,
      outputTokens: 10,
      reasoningTokens: null,
    });
    const u = (i: number, prompt: number) => (reads === null ? {} : { usage: usage(prompt, reads[i] ?? 0) });
    return new SessionBuilder()
      .user(100)
      .request({ textChars: 50, tool: { argsChars: 20, resultChars: 300 }, ...u(0, 2_100) })
      .request({ textChars: 40, ...u(1, 2_470) })
      .user(100)
      .request({ textChars: 30, ...u(2, 2_610) })
      .build();
  };
  const reads = (result: ReturnType<typeof replaySession>) =>
    result.rows.filter((row) => row.kind === 'request').map((row) => row.cacheReadTokens);

  it('the first request of a new user message reads only up to the previous run’s first tool-using response', () => {
    const base = { ...input(session(null), scenario('recorded')), recordedPolicy: PREFIX_STABLE_NEWEST_POLICY };
    // static 2,000 + u1 100 = 2,100 (the tool-using response a0 is serialized anew); without the break 2,470.
    expect(reads(replaySession({ ...base, reloadBreaks: true }))).toEqual([0, 2_100, 2_100]);
    expect(reads(replaySession(base))).toEqual([0, 2_100, 2_470]);
  });

  it('the Aug engine does not reload that way: no break', () => {
    const base = { ...input(session(null), scenario('recorded')), recordedPolicy: PREFIX_STABLE_AUG_POLICY };
    expect(reads(replaySession({ ...base, reloadBreaks: true }))).toEqual([0, 2_100, 2_470]);
  });

  it('the fit keeps the break when the log’s reads show it, and not when they do not', () => {
    const options = { modelFacts: () => FACTS };
    const scenarios = [scenario('recorded')];
    expect(simulateSession(session([0, 2_100, 2_100]), scenarios, options).reloadBreaks).toBe(true);
    expect(simulateSession(session([0, 2_100, 2_470]), scenarios, options).reloadBreaks).toBe(false);
  });
});
