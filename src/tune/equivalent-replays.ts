/**
 * Replays a sweep can prove identical without running them (exact, not an approximation).
 *
 * The target and the buffer enter the engine only through each model's compaction threshold,
 * `max(0, min(window, target) − buffer)` (engine.md §1.2, `compactThresholdTokens`); nothing else
 * reads them. For two engine-mode scenarios that agree on every other parameter (a *trigger
 * class*) and a session whose models have thresholds θ and θ′:
 * - θ′ = θ: the replays are the same (e.g. every target at or above the models' windows);
 * - θ′ ≥ θ, model by model, and the replay under θ never attempted a compaction: every check
 *   under θ′ compares the same token counts with a threshold at least as high, so it never fires
 *   either, and the replay is the same, row for row (a target above the session's peak).
 */
import type { Session } from '../session/model.js';
import { compactThresholdTokens } from '../engine/tokens.js';
import type { ModelFacts, RecordedPolicy, ReplayResult } from '../simulate/replay.js';
import { engineParamsFor, triggerWindowTokens } from '../simulate/replay.js';
import type { Scenario } from '../simulate/scenario.js';
import type { ScenarioTotals } from './scenario-totals.js';

type Known = { readonly thresholds: readonly number[]; readonly attempted: boolean; readonly totals: ScenarioTotals };

/** Everything that reaches the engine except the target and the buffer. */
function triggerClass(scenario: Scenario): string {
  return JSON.stringify([scenario.family, { ...scenario.params, targetTokens: null, bufferTokens: null }]);
}

export class EquivalentReplays {
  private readonly models: readonly string[];
  private readonly known = new Map<string, Known[]>();

  constructor(
    session: Session,
    private readonly recordedPolicy: RecordedPolicy,
    private readonly modelFacts: (model: string) => ModelFacts,
  ) {
    this.models = [...new Set(session.requests.map((request) => request.model))];
  }

  /** The compaction threshold of each of the session's models under `scenario`, as the replay computes it. */
  thresholds(scenario: Scenario): number[] {
    const params = engineParamsFor(scenario, this.recordedPolicy);
    return this.models.map((model) =>
      compactThresholdTokens(triggerWindowTokens(scenario, this.modelFacts(model)), params),
    );
  }

  /** The totals of an earlier replay provably identical to `scenario`'s, if any. */
  lookup(scenario: Scenario): ScenarioTotals | undefined {
    if (scenario.params.compaction !== 'engine') return undefined;
    const thresholds = this.thresholds(scenario);
    const candidates = this.known.get(triggerClass(scenario)) ?? [];
    const same = candidates.find((k) => k.thresholds.every((t, i) => t === thresholds[i]));
    if (same !== undefined) return same.totals;
    return candidates.find(
      (k) => !k.attempted && k.thresholds.every((t, i) => t <= (thresholds[i] ?? Number.NEGATIVE_INFINITY)),
    )?.totals;
  }

  /** Remembers a replay made under `scenario`. */
  record(scenario: Scenario, result: ReplayResult, totals: ScenarioTotals): void {
    if (scenario.params.compaction !== 'engine') return;
    const key = triggerClass(scenario);
    const list = this.known.get(key) ?? [];
    list.push({ thresholds: this.thresholds(scenario), attempted: result.compactions.length > 0, totals });
    this.known.set(key, list);
  }
}
