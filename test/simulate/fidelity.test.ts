/**
 * One fidelity definition (replay.md §6): the requests the replay models (`isModelledRequest`),
 * the same in the fit (TypeScript) and in the report (fidelity.sql); none modelled = n/a.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CostDb } from '../../src/cost/db.js';
import type { MeasuredUsage, Session } from '../../src/session/model.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { buildScenarios } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { scenarioRows, simulationRows } from '../../src/simulate/to-rows.js';
import { SessionBuilder } from './session-builder.js';

const prices = loadBundledPriceTable();
const options = { modelFacts: modelFactsFor(prices, 'anthropic') };

function usage(prompt: number): MeasuredUsage {
  return {
    promptTokens: prompt,
    uncachedInputTokens: prompt,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 50,
    reasoningTokens: null,
  };
}

/** Four requests: two modelled, a side request (a subagent's, billed as measured) and one without usage. */
function session(): Session {
  const built = new SessionBuilder()
    .user(4_000)
    .request({ textChars: 400, usage: usage(13_000) })
    .user(2_000)
    .request({ textChars: 400, usage: usage(900) })
    .user(2_000)
    .request({ textChars: 400 })
    .user(2_000)
    .request({ textChars: 400, usage: usage(19_000) })
    .build();
  return { ...built, requests: built.requests.map((r) => (r.index === 1 ? { ...r, agentId: 'subagent-1' } : r)) };
}

let db: CostDb | null = null;
afterEach(() => {
  db?.close();
  db = null;
});

async function sqlFidelity(s: Session) {
  const scenarios = buildScenarios([], {});
  const simulation = simulateSession(s, scenarios, options);
  db = await CostDb.open({ prices });
  await db.insertScenarios(scenarioRows(scenarios));
  const rows = simulationRows(simulation);
  await db.insertRequests(rows.requests);
  await db.insertSessions(rows.sessions);
  return { simulation, sql: await db.fidelity() };
}

describe('fidelity', () => {
  it('compares the requests the replay models, in the fit and in the report alike', async () => {
    const { simulation, sql } = await sqlFidelity(session());
    expect(simulation.fidelity.measuredRequests).toBe(2);
    expect(sql).toHaveLength(1);
    expect(sql[0]?.matchedRequests).toBe(2);
    expect(sql[0]?.promptTokensErrorPct).toBeCloseTo(simulation.fidelity.promptTokensErrorPct ?? Number.NaN, 9);
    expect(sql[0]?.medianRequestErrorPct).toBeCloseTo(simulation.fidelity.medianRequestErrorPct ?? Number.NaN, 9);
  });

  it('a session with nothing modelled has no figure (n/a), never 0%', async () => {
    const s = session();
    const sideOnly = { ...s, requests: s.requests.map((r) => ({ ...r, agentId: 'subagent-1' })) };
    const { simulation, sql } = await sqlFidelity(sideOnly);
    expect(simulation.fidelity.measuredRequests).toBe(0);
    expect(simulation.fidelity.medianRequestErrorPct).toBeNull();
    expect(sql).toHaveLength(0);
  });
});
