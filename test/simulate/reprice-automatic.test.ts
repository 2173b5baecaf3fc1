/**
 * `repriceAutomaticCache`: one kept walk repriced with other facts of an automatic cache (its
 * transient miss share, its lifetime) gives exactly the rows of a fresh replay made with those
 * facts, since the walk never reads the cache (the recorded fit relies on it).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/index.js';
import type { Session } from '../../src/session/model.js';
import { calibrateTokens } from '../../src/simulate/calibrate.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { recordedPolicyCandidates, SLIDING_LEGACY_POLICY } from '../../src/simulate/recorded-policy.js';
import type { ReplayInput } from '../../src/simulate/replay.js';
import { replaySession } from '../../src/simulate/replay.js';
import { repriceAutomaticCache, ttlChoiceOf } from '../../src/simulate/row-emitter.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';

const DATASETS = join(import.meta.dirname, '..', '..', 'datasets', 'freecode');
const prices = loadBundledPriceTable();
const recorded = buildScenarios(['recorded'], {}).find((s) => s.family === 'recorded');
const sessions: Session[] = [];

beforeAll(async () => {
  await forEachSession([DATASETS], { content: 'text' }, (session) => {
    const facts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
    if (session.requests.some((r) => facts(r.model).rules.kind === 'automatic-prefix')) sessions.push(session);
  });
}, 120_000);

describe('repriceAutomaticCache', () => {
  it('equals a fresh replay with the same miss share and lifetime', () => {
    expect(sessions.length).toBeGreaterThan(0);
    if (recorded === undefined) throw new Error('no recorded scenario');
    fc.assert(
      fc.property(
        fc.nat({ max: sessions.length - 1 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.constantFrom(undefined, 300_000, 3_600_000),
        fc.constantFrom(0, 2_000),
        (index, rate, ttlMs, warmStaticTokens) => {
          const session = sessions[index];
          if (session === undefined) throw new Error('no session');
          const input: ReplayInput = {
            session,
            scenario: recorded,
            calibration: calibrateTokens([]),
            recordedPolicy: recordedPolicyCandidates(session)[0] ?? SLIDING_LEGACY_POLICY,
            modelFacts: modelFactsFor(prices, session.requests[0]?.provider ?? null),
            preCompactHookBlocks: false,
            warmStaticTokens,
          };
          const kept = replaySession({ ...input, transientMissRate: 0, keepPrompts: true });
          const repriced = repriceAutomaticCache(
            kept,
            { transientMissRate: rate, automaticTtlMs: ttlMs },
            ttlChoiceOf(recorded),
            warmStaticTokens,
          );
          const fresh = replaySession({
            ...input,
            transientMissRate: rate,
            ...(ttlMs === undefined ? {} : { automaticTtlMs: ttlMs }),
          });
          expect(repriced).toEqual(fresh);
        },
      ),
      { numRuns: 12 },
    );
  }, 300_000);
});
