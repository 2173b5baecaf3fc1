/**
 * `replaySession` (the step of a thread that replays sessions) with `flagsUnread`: the outcome is
 * the same value as when the flags are read (the session rows' flag kinds, with `details` the
 * drill-down's flags), only no flags are returned. On `datasets/freecode`, whose blocked-hook-storm
 * session is the one where the kinds leave the hook-allowing replay out.
 *
 * Checked against a deliberate bug: the kinds taken without the blocked-hook storm's detector.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { resolvePrices } from '../../src/usecases/prices.js';
import { type OutcomeConfig, replaySession } from '../../src/usecases/simulate-outcome.js';

const DATASET = join(import.meta.dirname, '..', '..', 'datasets', 'freecode');

const sessions: Session[] = [];

describe.skipIf(!existsSync(DATASET))('replaySession with flagsUnread', () => {
  let config: OutcomeConfig;
  beforeAll(async () => {
    await forEachSession([DATASET], { content: 'text' }, (session) => {
      sessions.push(session);
    });
    config = { scenarios: buildScenarios(['freecode', 'none'], {}), prices: await resolvePrices(null), details: false };
  }, 60_000);

  it('gives the same outcome, without flags, with and without details', () => {
    let flagged = 0;
    for (const session of sessions) {
      for (const details of [false, true]) {
        const read = replaySession(session, { ...config, details });
        const unread = replaySession(session, { ...config, details, flagsUnread: true });
        expect(unread.outcome).toEqual(read.outcome);
        expect(unread.flags).toEqual([]);
        if (read.flags.some((flag) => flag.kind === 'blocked-hook-storm')) flagged += 1;
      }
    }
    // The dataset's hook-storm session was among them (with and without details).
    expect(flagged).toBe(2);
  }, 60_000);
});
