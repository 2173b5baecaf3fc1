/**
 * What the replay needs to know of each model (window, max output, cache rules), resolved once per
 * model name from the price table; `simulate`, `flags` and `tune` all resolve models through it.
 */
import { modelFacts, resolveCacheRules } from '../cost/model-resolution.js';
import type { PriceTable } from '../cost/price-table.js';
import type { Session } from '../session/model.js';
import type { ModelFacts } from './replay.js';

/** A memoized lookup of model facts for one session's provider. */
export function modelFactsFor(prices: PriceTable, provider: string | null): (model: string) => ModelFacts {
  const known = new Map<string, ModelFacts>();
  return (model) => {
    const cached = known.get(model);
    if (cached !== undefined) return cached;
    const facts = modelFacts(prices, model);
    const resolved: ModelFacts = {
      contextWindowTokens: facts?.contextWindowTokens ?? null,
      maxOutputTokens: facts?.maxOutputTokens ?? null,
      rules: resolveCacheRules(prices, model, provider).rules,
    };
    known.set(model, resolved);
    return resolved;
  };
}

/** The lookup for one session: its provider is the first one a request names. */
export function modelFactsForSession(prices: PriceTable, session: Session): (model: string) => ModelFacts {
  const provider = session.requests.find((request) => request.provider !== null)?.provider ?? null;
  return modelFactsFor(prices, provider);
}
