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
import { automaticCacheFacts, preCompactHookBlocks, simulateSession } from '../../src/simulate/simulate-session.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';

const DATASETS = join(import.meta.dirname, '..', '..', 'datasets', 'freecode');
const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', 'shared', 'real-logs');
const prices = loadBundledPriceTable();
const recorded = buildScenarios(['recorded'], {}).find((s) => s.family === 'recorded');
const sessions: Session[] = [];
/** Sessions of the real logs whose cache the fit measures (an automatic cache with transient misses). */
const measured: Session[] = [];

beforeAll(async () => {
  await forEachSession([DATASETS], { content: 'text' }, (session) => {
    const facts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
    if (session.requests.some((r) => facts(r.model).rules.kind === 'automatic-prefix')) sessions.push(session);
  });
  await forEachSession([REAL_LOGS, DATASETS], { content: 'text' }, (session) => {
    const facts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
    const automatic = session.requests.some((r) => {
      const rules = facts(r.model).rules;
      return rules.kind === 'automatic-prefix' && rules.transientMissRate > 0;
    });
    if (automatic && session.totalsOnly === null && session.requests.length > 0) measured.push(session);
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
        // The fit reprices its own pricing, made with the provider's miss share (undefined), with
        // FreeCode's reload break where it kept it; a kept walk made with a share of 0 too.
        fc.constantFrom(undefined, 0),
        fc.boolean(),
        (index, rate, ttlMs, warmStaticTokens, keptRate, reloadBreaks) => {
          const session = sessions[index];
          if (session === undefined) throw new Error('no session');
          const recordedPolicy = recordedPolicyCandidates(session)[0] ?? SLIDING_LEGACY_POLICY;
          const input: ReplayInput = {
            session,
            scenario: recorded,
            calibration: calibrateTokens([]),
            recordedPolicy,
            modelFacts: modelFactsFor(prices, session.requests[0]?.provider ?? null),
            preCompactHookBlocks: false,
            warmStaticTokens,
            // The reload break exists in the newest engine only.
            ...(reloadBreaks && recordedPolicy.version === 'newest' ? { reloadBreaks: true } : {}),
          };
          const kept = replaySession({
            ...input,
            ...(keptRate === undefined ? {} : { transientMissRate: keptRate }),
            keepPrompts: true,
          });
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

  it('the fit repricing its own pricing gives a fresh replay with the facts it chose, without kept prompts', () => {
    // The recorded fit reprices the pricing it chose the policy with (made with the provider's
    // miss share and kept prompts) instead of pricing the sends again: its result must be a fresh
    // replay's with the facts it reports, and carry no kept prompts, whichever way the facts went.
    if (recorded === undefined) throw new Error('no recorded scenario');
    expect(measured.length).toBeGreaterThan(10);
    let changed = 0;
    for (const session of measured) {
      const modelFacts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
      const fit = simulateSession(session, [recorded], { modelFacts });
      const result = fit.results[0]?.result;
      if (fit.transientMissRate !== undefined || fit.automaticTtlMs !== undefined) changed += 1;
      const fresh = replaySession({
        session,
        scenario: recorded,
        calibration: fit.calibration,
        recordedPolicy: fit.recordedPolicy,
        modelFacts,
        preCompactHookBlocks: preCompactHookBlocks(session),
        warmStaticTokens: fit.warmStaticTokens,
        ...automaticCacheFacts(fit),
      });
      expect(result).toStrictEqual(fresh);
    }
    // Both ways are taken: facts measured, and the provider's kept.
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(measured.length);
  }, 300_000);
});
