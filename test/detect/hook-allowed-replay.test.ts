/**
 * The flags' one extra engine walk, the default-target scenario replayed with the PreCompact hook
 * allowing, is made only for a session where some trace has a blocked-hook storm (its only reader),
 * at most once per session, and never for the flags' kinds alone (`detectSessionFlagKinds`).
 * `replaySession` is wrapped to count the walks.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/simulate/replay.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/simulate/replay.js')>();
  return { ...actual, replaySession: vi.fn(actual.replaySession) };
});

import { BASELINE_SCENARIO, detectSessionFlagKinds, detectSessionFlags } from '../../src/detect/detect-session.js';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import type { Session } from '../../src/session/model.js';
import { replaySession } from '../../src/simulate/replay.js';
import type { Scenario } from '../../src/simulate/scenario.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { SessionFixture, usage } from './session-fixture.js';
import { factsOf, PRICES } from './trace-fixture.js';

const RECORDED: Scenario = { name: 'recorded', family: 'recorded', params: familyDefaults('recorded') };
/** A lower target: its replay of the hooked session storms too. */
const LOW: Scenario = {
  name: 'freecode@80000',
  family: 'freecode',
  params: { ...familyDefaults('freecode'), targetTokens: 80_000 },
};

/** Each response adds 8,000 measured tokens; a PreCompact block after each response from 108,000 on (`blocks` of them at most). */
function hookedSession(blocks: number): Session {
  const session = new SessionFixture('hooked').user(4_000);
  let read = 0;
  let blocked = 0;
  for (let i = 0; i < 10; i++) {
    const prompt = 60_000 + 8_000 * i;
    session.send(usage(prompt, read, prompt - read), 32_000);
    read = prompt;
    if (prompt >= 108_000 && blocked < blocks) {
      session.hookBlock();
      blocked += 1;
    }
  }
  return session.build();
}

/** The session's flags (or only their kinds), and how many engine walks (hook-allowing ones) the detection made. */
function detect(session: Session, examined: readonly Scenario[] = [], kindsOnly = false) {
  const modelFacts = (model: string) => factsOf(model);
  const simulation = simulateSession(session, [RECORDED, BASELINE_SCENARIO, ...examined], { modelFacts });
  const options = {
    prices: PRICES,
    modelFacts,
    thresholds: DEFAULT_THRESHOLDS,
    baseline: BASELINE_SCENARIO,
    examined: examined.map((s) => s.name),
  };
  const walks = vi.mocked(replaySession);
  walks.mockClear();
  const flags = kindsOnly ? detectSessionFlagKinds(simulation, options) : detectSessionFlags(simulation, options);
  const hookAllowing = walks.mock.calls.filter(([input]) => input.preCompactHookBlocks === false).length;
  return { flags, hookAllowing, walks: walks.mock.calls.length };
}

describe('the hook-allowing replay of the flags', () => {
  it('is walked once for a session with a blocked-hook storm, however many traces storm', () => {
    // Checked against a deliberate bug: the replay made again on every call.
    const one = detect(hookedSession(4));
    expect(one.flags.map((flag) => `${flag.scenario} ${flag.kind}`)).toEqual(['recorded blocked-hook-storm']);
    expect(one.hookAllowing).toBe(1);
    const two = detect(hookedSession(4), [LOW]);
    expect(two.flags.map((flag) => `${flag.scenario} ${flag.kind}`)).toEqual([
      'recorded blocked-hook-storm',
      'freecode@80000 blocked-hook-storm',
    ]);
    expect(two.walks).toBe(1);
    expect(two.hookAllowing).toBe(1);
  });

  it('is not walked where the hook blocks without a storm (fewer blocks than a storm takes)', () => {
    // Checked against a deliberate bug: the replay made eagerly for every session whose hook blocks.
    const quiet = detect(hookedSession(DEFAULT_THRESHOLDS.hookStormMinBlocks - 1));
    expect(quiet.flags.map((flag) => flag.kind)).not.toContain('blocked-hook-storm');
    expect(quiet.walks).toBe(0);
  });

  it("is not walked for the kinds alone, which are the full flags' kinds in their order", () => {
    // Checked against deliberate bugs: the kinds asked with the hook-allowing replay (one walk), and
    // the blocked-hook storm left out of the kinds.
    for (const blocks of [2, 3, 4]) {
      for (const examined of [[], [LOW]]) {
        const kinds = detect(hookedSession(blocks), examined, true);
        const full = detect(hookedSession(blocks), examined);
        expect(kinds.walks).toBe(0);
        expect(kinds.flags).toEqual(full.flags.map((flag) => ({ kind: flag.kind, scenario: flag.scenario })));
      }
    }
  });
});
