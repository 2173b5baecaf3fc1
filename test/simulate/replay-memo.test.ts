/**
 * `ReplayMemo` (replay-memo.ts) only saves work: replaying a session's scenarios one after another
 * with one shared memo gives, replay by replay, the result of a replay with a fresh memo — under
 * every scenario family, every recorded-policy candidate (sliding truncation, microcompact,
 * prefix-stable) and two calibrations, as `simulateSession` mixes them.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/index.js';
import type { Session } from '../../src/session/model.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { recordedPolicyCandidates, SLIDING_LEGACY_POLICY } from '../../src/simulate/recorded-policy.js';
import type { ReplayInput } from '../../src/simulate/replay.js';
import { replaySession } from '../../src/simulate/replay.js';
import { ReplayMemo } from '../../src/simulate/replay-memo.js';
import { SCENARIO_FAMILY_NAMES } from '../../src/simulate/scenario-families.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';

const DATASETS = join(import.meta.dirname, '..', '..', 'datasets', 'freecode');
const prices = loadBundledPriceTable();
const scenarios = buildScenarios([...SCENARIO_FAMILY_NAMES], { targetTokens: [60_000] });
const calibrations: TokenCalibration[] = [
  { tokensPerChar: 0.25, staticBlockTokens: 12_000, source: 'defaults', points: 0 },
  { tokensPerChar: 0.31, staticBlockTokens: 9_500, source: 'fitted', points: 10 },
];
const sessions: Session[] = [];

beforeAll(async () => {
  const all: Session[] = [];
  await forEachSession([DATASETS], { content: 'text' }, (session) => {
    all.push(session);
  });
  // The three shortest sessions keep the test quick; each has tool results, responses and compactions enough.
  sessions.push(...all.sort((a, b) => a.requests.length - b.requests.length || a.id.localeCompare(b.id)).slice(0, 3));
}, 120_000);

describe('ReplayMemo', () => {
  it('shared by every replay of a session, changes no replay', () => {
    expect(sessions.length).toBe(3);
    for (const session of sessions) {
      const memo = new ReplayMemo();
      const linelessMemo = new ReplayMemo({ keepToolLines: false });
      expect(linelessMemo.toolLines).toBeUndefined();
      const modelFacts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
      const policies = [recordedPolicyCandidates(session)[0] ?? SLIDING_LEGACY_POLICY, SLIDING_LEGACY_POLICY];
      for (const calibration of calibrations) {
        for (const recordedPolicy of policies) {
          for (const scenario of scenarios) {
            const input: ReplayInput = {
              session,
              scenario,
              calibration,
              recordedPolicy,
              modelFacts,
              preCompactHookBlocks: false,
            };
            expect(replaySession({ ...input, memo }), `${session.id} ${scenario.name}`).toEqual(replaySession(input));
            // Without its tool-transcript lines (a large session's memo): the same rows again.
            expect(
              replaySession({ ...input, memo: linelessMemo }),
              `${session.id} ${scenario.name} (no lines)`,
            ).toEqual(replaySession(input));
          }
        }
      }
    }
  }, 300_000);
});
