/**
 * The step `simulate` and `flags` share for each session: skip a session without per-request data
 * (nothing to replay), resolve its models' facts from the price table, replay every scenario.
 */
import type { PriceTable } from '../cost/price-table.js';
import type { Session } from '../session/model.js';
import { modelFactsForSession } from '../simulate/model-facts.js';
import type { ModelFacts } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { isReplayable, simulateSession } from '../simulate/simulate-session.js';

export type ReplayedSession = {
  readonly simulation: SessionSimulation;
  /** The lookup the replay used, for the detectors that price what they find. */
  readonly modelFacts: (model: string) => ModelFacts;
};

/** The session replayed under `scenarios`, or null when it has no per-request data to replay. */
export function replayWithPrices(
  session: Session,
  scenarios: readonly Scenario[],
  prices: PriceTable,
): ReplayedSession | null {
  if (!isReplayable(session)) return null;
  const modelFacts = modelFactsForSession(prices, session);
  return { simulation: simulateSession(session, scenarios, { modelFacts }), modelFacts };
}
