import { describe, expect, it } from 'vitest';
import { BASELINE_SCENARIO, detectSessionFlags } from '../../src/detect/detect-session.js';
import { FLAG_KINDS } from '../../src/detect/flag.js';
import { DETECTORS } from '../../src/detect/registry.js';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import { flagJson } from '../../src/report/flag-json.js';
import type { Session } from '../../src/session/model.js';
import type { Scenario } from '../../src/simulate/scenario.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { SessionFixture, usage } from './session-fixture.js';
import { factsOf, PRICES } from './trace-fixture.js';

const RECORDED: Scenario = { name: 'recorded', family: 'recorded', params: familyDefaults('recorded') };
const NONE: Scenario = { name: 'none', family: 'none', params: familyDefaults('none') };

/** Each response adds 8,000 measured tokens (32,000 characters); a PreCompact block after each response from 108,000 on. */
function hookStormSession(): Session {
  const session = new SessionFixture('hooked').user(4_000);
  let read = 0;
  for (let i = 0; i < 10; i++) {
    const prompt = 60_000 + 8_000 * i;
    session.send(usage(prompt, read, prompt - read), 32_000);
    read = prompt;
    if (prompt >= 108_000) session.hookBlock();
  }
  return session.build();
}

function detect(session: Session, examined: readonly Scenario[] = []) {
  const modelFacts = (model: string) => factsOf(model);
  const simulation = simulateSession(session, [RECORDED, BASELINE_SCENARIO, ...examined], { modelFacts });
  return detectSessionFlags(simulation, {
    prices: PRICES,
    modelFacts,
    thresholds: DEFAULT_THRESHOLDS,
    baseline: BASELINE_SCENARIO,
    examined: examined.map((s) => s.name),
  });
}

describe('detectSessionFlags', () => {
  it('the registry holds one detector per flag kind of replay.md §9, in order', () => {
    expect(DETECTORS.map((detector) => detector.kind)).toEqual([...FLAG_KINDS]);
  });

  it('prices a hook storm against the default target replayed with the hook allowing', () => {
    const flags = detect(hookStormSession());
    expect(flags.map((flag) => [flag.scenario, flag.kind])).toEqual([['recorded', 'blocked-hook-storm']]);
    expect(flags[0]?.evidence).toMatchObject({
      blockedCompactions: 4,
      contextAtFirstBlockTokens: 108_000,
      contextAtLastBlockTokens: 132_000,
    });
    expect(flags[0]?.stake).toMatchObject({
      kind: 'priced',
      against: 'freecode@120000 with the PreCompact hook allowing',
    });
  });

  it('examines the asked scenarios after recorded, and is deterministic (same input, same bytes)', () => {
    const session = hookStormSession();
    const first = detect(session, [NONE]);
    const second = detect(session, [NONE]);
    expect(first.map((flag) => flag.scenario)).toEqual(['recorded', ...first.slice(1).map(() => 'none')]);
    expect(JSON.stringify(second.map(flagJson))).toBe(JSON.stringify(first.map(flagJson)));
  });
});
