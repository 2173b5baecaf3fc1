/**
 * The policies of the field (src/simulate/policies, README.md "Policies of the field"): each
 * family's prompts and cache classes pinned on a small fixture computed by hand (one token per
 * character, a 2,000-token static block, Anthropic breakpoint caching), and the two properties
 * every family owes: it never sends a prompt above the window when the recorded agent did not,
 * and where it changes nothing its replay is `recorded`'s, row for row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';
import { CLEARED_RESULT_PLACEHOLDER } from '../../src/simulate/policies/clear-tool-uses.js';
import { MASKED_RESULT_PLACEHOLDER } from '../../src/simulate/policies/observation-masking.js';
import { PRUNED_RESULT_PLACEHOLDER, opencodeUsableWindow } from '../../src/simulate/policies/opencode.js';
import type { RecordedPolicy } from '../../src/simulate/replay-types.js';
import { NO_PRUNING_POLICY, PREFIX_STABLE_NEWEST_POLICY } from '../../src/simulate/recorded-policy.js';
import type { ModelFacts, ReplayInput, ReplayResult } from '../../src/simulate/replay.js';
import { replaySession } from '../../src/simulate/replay.js';
import type { Scenario, ScenarioFamily, ToolResultEditing } from '../../src/simulate/scenario.js';
import { buildScenarios, familyDefaults } from '../../src/simulate/scenario.js';
import { seriesKey, sweepScenarios } from '../../src/tune/grid.js';
import { SessionBuilder } from './session-builder.js';

const UNIT: TokenCalibration = { tokensPerChar: 1, staticBlockTokens: 2_000, source: 'fitted', points: 0 };
const FACTS: ModelFacts = { contextWindowTokens: 200_000, maxOutputTokens: 64_000, rules: CACHE_RULES.anthropic };

function scenario(family: ScenarioFamily, overrides: Partial<Scenario['params']> = {}): Scenario {
  return { name: family, family, params: { ...familyDefaults(family), summarizer: 'heuristic', ...overrides } };
}

function replay(
  session: ReplayInput['session'],
  s: Scenario,
  recordedPolicy: RecordedPolicy = NO_PRUNING_POLICY,
): ReplayResult {
  return replaySession({
    session,
    scenario: s,
    calibration: UNIT,
    recordedPolicy,
    modelFacts: () => FACTS,
    preCompactHookBlocks: false,
  });
}

/** [prompt, cache read, cache write 5m] of each row. */
function classes(result: ReplayResult): number[][] {
  return result.rows.map((row) => [row.promptTokens, row.cacheReadTokens, row.cacheWrite5mTokens]);
}

/** A user message, then one tool use per request (assistant 50 + call 20 = 70 chars, result `result` chars), then `tail` plain requests. */
function toolSession(results: readonly number[], tail: number): ReplayInput['session'] {
  const builder = new SessionBuilder().user(100);
  for (const resultChars of results) builder.request({ textChars: 50, tool: { argsChars: 20, resultChars } });
  for (let i = 0; i < tail; i++) builder.request({ textChars: 50 });
  return builder.build();
}

function clearing(
  params: Partial<Extract<ToolResultEditing, { kind: 'clear-tool-uses' }>>,
): Partial<Scenario['params']> {
  return {
    editing: {
      kind: 'clear-tool-uses',
      triggerTokens: 3_000,
      keepToolUses: 1,
      clearAtLeastTokens: 0,
      excludeTools: [],
      ...params,
    },
  };
}

describe('observation-masking (hand-computed)', () => {
  // u 100; a0 70 + r0 1,000; a1 70 + r1 1,000; a2 50 (no tool); static block 2,000.
  const session = toolSession([1_000, 1_000], 2);
  const masked = MASKED_RESULT_PLACEHOLDER.length;

  it('M = 1: the older result becomes the placeholder when the second arrives; the cache reads only the prefix before it', () => {
    const result = replay(
      session,
      scenario('observation-masking', { editing: { kind: 'observation-masking', keepToolResults: 1 } }),
    );
    expect(classes(result)).toEqual([
      [2_100, 0, 2_100],
      [3_170, 2_100, 1_070],
      // r0 crosses the window of M: [static, u] is the longest alive entry still a prefix.
      [2_000 + 100 + 70 + masked + 70 + 1_000, 2_100, 70 + masked + 70 + 1_000],
      // Nothing crosses the window: the previous prompt is read whole.
      [2_000 + 100 + 70 + masked + 70 + 1_000 + 50, 2_000 + 100 + 70 + masked + 70 + 1_000, 50],
    ]);
  });

  it('M at or above the number of results changes nothing: the recorded replay', () => {
    const recorded = replay(session, scenario('recorded'));
    expect(classes(recorded)).toEqual([
      [2_100, 0, 2_100],
      [3_170, 2_100, 1_070],
      [4_240, 3_170, 1_070],
      [4_290, 4_240, 50],
    ]);
    expect(
      replay(
        session,
        scenario('observation-masking', { editing: { kind: 'observation-masking', keepToolResults: 2 } }),
      ),
    ).toEqual(recorded);
  });

  it('freecode+observation-masking masks the same way below the target (prefix-stable pruning has nothing to prune)', () => {
    const combined = replay(
      session,
      scenario('freecode+observation-masking', { editing: { kind: 'observation-masking', keepToolResults: 1 } }),
      PREFIX_STABLE_NEWEST_POLICY,
    );
    const alone = replay(
      session,
      scenario('observation-masking', { editing: { kind: 'observation-masking', keepToolResults: 1 } }),
    );
    expect(classes(combined)).toEqual(classes(alone));
    expect(combined.compactions).toEqual([]);
  });
});

describe('clear-tool-uses (hand-computed)', () => {
  // Three tool uses of 1,000-char results, then two plain requests. Unedited prompts: 2,100, 3,170, 4,240, 5,310, 5,360.
  const session = toolSession([1_000, 1_000, 1_000], 2);
  const cleared = CLEARED_RESULT_PLACEHOLDER.length;

  it('trigger 3,000, keep 1: clears all but the newest tool use whenever the edited prompt exceeds the trigger', () => {
    const result = replay(session, scenario('clear-tool-uses', clearing({})));
    const afterFirst = 2_000 + 100 + 70 + cleared + 70 + 1_000;
    const afterSecond = afterFirst + 70 + 1_000 - 1_000 + cleared;
    expect(classes(result)).toEqual([
      [2_100, 0, 2_100],
      // 3,170 > 3,000, but the only tool use is the one kept.
      [3_170, 2_100, 1_070],
      // r0 cleared: the cache is invalidated from it on; [static, u] is read.
      [afterFirst, 2_100, afterFirst - 2_100],
      // 4,350 > 3,000 again: r1 cleared, the prefix before it has no entry of its own, [static, u] is read.
      [afterSecond, 2_100, afterSecond - 2_100],
      // Above the trigger but nothing left to clear: the previous prompt is read whole.
      [afterSecond + 50, afterSecond, 50],
    ]);
  });

  it('clear_at_least 1,500 batches the clearing: r0 alone frees 960, r0 and r1 together 1,920', () => {
    const result = replay(session, scenario('clear-tool-uses', clearing({ clearAtLeastTokens: 1_500 })));
    const afterBatch = 5_310 - 2 * (1_000 - cleared);
    expect(classes(result)).toEqual([
      [2_100, 0, 2_100],
      [3_170, 2_100, 1_070],
      [4_240, 3_170, 1_070],
      [afterBatch, 2_100, afterBatch - 2_100],
      [afterBatch + 50, afterBatch, 50],
    ]);
  });

  it('an excluded tool is never cleared, and a trigger above every prompt clears nothing: both are the recorded replay', () => {
    const recorded = replay(session, scenario('recorded'));
    expect(replay(session, scenario('clear-tool-uses', clearing({ excludeTools: ['bash'] })))).toEqual(recorded);
    expect(replay(session, scenario('clear-tool-uses', clearing({ triggerTokens: 5_360 })))).toEqual(recorded);
  });
});

describe('opencode (hand-computed)', () => {
  it('prunes at the end of a turn the outputs beyond the protected budget, outside the last two turns', () => {
    // Each turn: user 100, a 70, a 2,000-char result (opencode estimate 500). Protect 300, minimum 200.
    const builder = new SessionBuilder();
    for (let i = 0; i < 3; i++)
      builder.user(100).request({ textChars: 50, tool: { argsChars: 20, resultChars: 2_000 } });
    builder.user(100).request({ textChars: 50 });
    const session = builder.build();
    const editing: ToolResultEditing = {
      kind: 'opencode-prune',
      protectTokens: 300,
      minimumTokens: 200,
      protectedTools: ['skill'],
    };
    const result = replay(session, scenario('opencode', { editing }));
    const pruned = PRUNED_RESULT_PLACEHOLDER.length;
    // Turn 3 starts: r0 is in the last two turns (turns 1 and 2 as the walk counts back from u2): kept.
    // Turn 4 starts: the walk skips turns 3 and 2 and reaches a0: r0 counts 500 > 300, marked;
    // 500 marked > 200, so it is replaced. The cache reads [static, u1], the prefix before it.
    const turn = 100 + 70 + 2_000;
    const last = 2_000 + 100 + 70 + pruned + 2 * turn + 100;
    expect(classes(result)).toEqual([
      [2_100, 0, 2_100],
      [2_000 + turn + 100, 2_100, turn],
      [2_000 + 2 * turn + 100, 2_000 + turn + 100, turn],
      [last, 2_100, last - 2_100],
    ]);
    expect(result.compactions).toEqual([]);
  });

  it('compacts once the measured prompt reaches the usable window: 200,000 − 32,000 − 20,000', () => {
    expect(opencodeUsableWindow(200_000, 64_000)).toBe(148_000);
    expect(opencodeUsableWindow(128_000, 16_384)).toBe(128_000 - 16_384 - 16_384);
    // One user message (no turn ends, so no pruning); each request adds 20,070 tokens.
    const session = toolSession(
      Array.from({ length: 10 }, () => 20_000),
      0,
    );
    const result = replay(session, scenario('opencode'));
    const first = result.compactions.find((c) => c.compacted);
    // Request 8 measured 2,100 + 8 × 20,070 = 162,660 ≥ 148,000; request 7's 142,590 did not reach it.
    expect(first?.requestIndex).toBe(9);
    expect(first?.trigger).toBe('threshold');
    expect(result.overflows).toBe(0);
  });
});

describe('scenario names and knobs', () => {
  it('a list of M or of triggers makes one scenario each; the combination names its second knob', () => {
    const names = buildScenarios(
      ['observation-masking', 'clear-tool-uses', 'freecode+observation-masking', 'opencode'],
      {
        keepToolResults: [4, 10],
        clearTriggerTokens: [80_000],
        targetTokens: [120_000],
      },
    ).map((s) => s.name);
    expect(names).toEqual([
      'recorded',
      'observation-masking@4',
      'observation-masking@10',
      'clear-tool-uses@80000',
      'freecode+observation-masking@120000,results=4',
      'freecode+observation-masking@120000,results=10',
      'opencode@40000',
    ]);
  });
});

describe('tune grid of the policy families', () => {
  it('each family sweeps its own knob by default; buffer and preserve-turns reach only engine families', () => {
    const scenarios = sweepScenarios({
      families: ['observation-masking', 'clear-tool-uses', 'opencode'],
      targetTokens: [120_000],
      bufferTokens: [8_000, 13_000],
      preserveRecentTurns: null,
      ttls: null,
      fixed: {},
    });
    const names = scenarios.map((s) => s.name);
    expect(names.filter((n) => n.startsWith('observation-masking'))).toEqual(
      [1, 2, 3, 4, 6, 8, 10, 15, 20].map((m) => `observation-masking@${m}`),
    );
    expect(names.filter((n) => n.startsWith('clear-tool-uses'))).toHaveLength(9);
    // opencode compacts by the engine: one curve of protected budgets per buffer.
    expect(names.filter((n) => n.startsWith('opencode'))).toHaveLength(16);
    const opencode = scenarios.filter((s) => s.family === 'opencode' && s.params.bufferTokens === 8_000);
    expect(new Set(opencode.map(seriesKey)).size).toBe(1);
  });
});

// ── properties ──────────────────────────────────────────────────────────────────────────────

const EDITING_FAMILIES: readonly ScenarioFamily[] = [
  'observation-masking',
  'clear-tool-uses',
  'opencode',
  'freecode+observation-masking',
  'freecode+clear-tool-uses',
];

/** The recorded agent's pruning each family is compared with: FreeCode's for the freecode+ families. */
function recordedPolicyFor(family: ScenarioFamily): RecordedPolicy {
  return family.startsWith('freecode') ? PREFIX_STABLE_NEWEST_POLICY : NO_PRUNING_POLICY;
}

type Turn = { readonly user: number; readonly results: readonly number[]; readonly gapMs: number };

function sessionOf(turns: readonly Turn[]): ReplayInput['session'] {
  const builder = new SessionBuilder();
  for (const turn of turns) {
    builder.wait(turn.gapMs).user(turn.user);
    for (const resultChars of turn.results) builder.request({ textChars: 30, tool: { argsChars: 10, resultChars } });
    builder.request({ textChars: 20 });
  }
  return builder.build();
}

describe('every policy family (properties)', () => {
  // Checked against a deliberate bug: `withPlaceholders` replacing results shorter than the
  // placeholder (the length guard removed) sends prompts above the recorded peak.
  it('never sends a prompt above the window when the recorded agent did not', () => {
    fc.assert(
      fc.property(
        // Sessions of small results only (shorter than a placeholder) and sessions of any size.
        fc.constantFrom(40, 20_000).chain((maxResult) =>
          fc.array(
            fc.record({
              user: fc.integer({ min: 1, max: 2_000 }),
              results: fc.array(fc.integer({ min: 0, max: maxResult }), { maxLength: 6 }),
              gapMs: fc.integer({ min: 0, max: 600_000 }),
            }),
            { minLength: 1, maxLength: 8 },
          ),
        ),
        fc.constantFrom(...EDITING_FAMILIES),
        fc.integer({ min: 0, max: 4 }),
        (turns, family, keep) => {
          const session = sessionOf(turns);
          const policy = recordedPolicyFor(family);
          const recorded = replay(session, scenario('recorded'), policy);
          // The window is the recorded peak: the recorded agent just fits.
          const windowTokens = Math.max(...recorded.rows.map((row) => row.promptTokens));
          const base = familyDefaults(family);
          const editing: ToolResultEditing =
            base.editing.kind === 'observation-masking'
              ? { ...base.editing, keepToolResults: keep }
              : base.editing.kind === 'clear-tool-uses'
                ? { ...base.editing, triggerTokens: 2_000 + keep * 1_000, keepToolUses: keep }
                : base.editing;
          const result = replay(session, scenario(family, { windowTokens, editing }), policy);
          for (const row of result.rows)
            if (row.kind === 'request') expect(row.promptTokens).toBeLessThanOrEqual(windowTokens);
          // Editing on the agent's own compactions never even tries a send above the window (an
          // engine family refuses such a send and compacts, by construction of the walk).
          if (base.compaction === 'recorded') expect([result.overflows, result.failedTurns]).toEqual([0, 0]);
        },
      ),
      { numRuns: 150 },
    );
  });

  // Checked against a deliberate bug: observation masking keeping M − 1 results
  // (`parts.length - keepToolResults + 1`) masks one result of a session with exactly M.
  it('equals recorded exactly where it changes nothing: no tool results, or below every trigger', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            user: fc.integer({ min: 1, max: 3_000 }),
            results: fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 3 }),
            gapMs: fc.integer({ min: 0, max: 600_000 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom(...EDITING_FAMILIES),
        fc.boolean(),
        (turns, family, withoutResults) => {
          const shaped = withoutResults ? turns.map((turn) => ({ ...turn, results: [] })) : turns;
          // Below every trigger: at most M = 10 results, prompts far below 100K, outputs below
          // opencode's 40K protected budget, and nothing for prefix-stable pruning to prune.
          const count = shaped.reduce((sum, turn) => sum + turn.results.length, 0);
          fc.pre(count <= 10);
          const session = sessionOf(shaped);
          const policy = recordedPolicyFor(family);
          const recorded = replay(session, scenario('recorded'), policy);
          const result = replay(session, scenario(family), policy);
          expect(result).toEqual(recorded);
        },
      ),
      { numRuns: 150 },
    );
  });
});
