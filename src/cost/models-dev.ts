/**
 * models.dev `api.json` (pricing.md §2): providers → models → `cost` in USD per million tokens
 * (`input`, `output`, `cache_read`, `cache_write` = the 5m write), a long-context tier as
 * `[[cost.tiers]]` (`tier: {type: "context", size}`) or the legacy `context_over_200k`, and
 * `limit.context` / `limit.output`. models.dev has no 1-hour write price: it is derived.
 */
import { z } from 'zod';
import { usdPerMTokToPicoPerToken } from './money.js';
import { issuePath } from './price-candidate.js';
import type { CandidatesResult, PriceCandidate } from './price-candidate.js';
import type { LongContextDraft, RatesDraft } from './price-table.js';

const usd = z.number().nonnegative().finite();

const TierRatesShape = {
  input: usd.optional(),
  output: usd.optional(),
  cache_read: usd.nullable().optional(),
  cache_write: usd.nullable().optional(),
};

const CostSchema = z.looseObject({
  ...TierRatesShape,
  context_over_200k: z.looseObject(TierRatesShape).nullable().optional(),
  tiers: z
    .array(
      z.looseObject({
        ...TierRatesShape,
        tier: z.looseObject({ type: z.string(), size: z.number().int().positive() }),
      }),
    )
    .nullable()
    .optional(),
});

const ModelSchema = z.looseObject({
  cost: CostSchema.nullable().optional(),
  limit: z
    .looseObject({
      context: z.number().nonnegative().nullable().optional(),
      output: z.number().nonnegative().nullable().optional(),
    })
    .nullable()
    .optional(),
});

const ProviderSchema = z.looseObject({ models: z.record(z.string(), ModelSchema) });

export const ModelsDevFileSchema = z.record(z.string(), ProviderSchema);

/** Whether parsed JSON looks like a models.dev `api.json` (an object of providers holding `models`). */
export function looksLikeModelsDev(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  return Object.values(json).some(
    (provider: unknown) =>
      typeof provider === 'object' && provider !== null && 'models' in provider && typeof provider.models === 'object',
  );
}

type TierRates = {
  input?: number | undefined;
  output?: number | undefined;
  cache_read?: number | null | undefined;
  cache_write?: number | null | undefined;
};

function pico(value: number | null | undefined): number | null | undefined {
  return value === undefined || value === null ? value : usdPerMTokToPicoPerToken(value);
}

function tierRates(rates: TierRates, base: RatesDraft): RatesDraft {
  return {
    input: rates.input === undefined ? base.input : usdPerMTokToPicoPerToken(rates.input),
    output: rates.output === undefined ? base.output : usdPerMTokToPicoPerToken(rates.output),
    cacheRead: pico(rates.cache_read),
    cacheWrite5m: pico(rates.cache_write),
  };
}

function positiveOrNull(value: number | null | undefined): number | null {
  return value === undefined || value === null || value <= 0 ? null : Math.round(value);
}

/** Candidates from a models.dev `api.json`; models without an input and output price are skipped. */
export function parseModelsDev(json: unknown, sourceLabel: string): CandidatesResult {
  const parsed = ModelsDevFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      kind: 'invalid',
      reason: issue === undefined ? 'invalid models.dev file' : `${issuePath(issue.path)}: ${issue.message}`,
    };
  }
  const candidates: PriceCandidate[] = [];
  for (const [provider, providerEntry] of Object.entries(parsed.data)) {
    for (const [key, model] of Object.entries(providerEntry.models)) {
      const cost = model.cost;
      if (cost === undefined || cost === null || cost.input === undefined || cost.output === undefined) continue;
      const rates: RatesDraft = {
        input: usdPerMTokToPicoPerToken(cost.input),
        output: usdPerMTokToPicoPerToken(cost.output),
        cacheRead: pico(cost.cache_read),
        cacheWrite5m: pico(cost.cache_write),
      };
      const contextTiers = (cost.tiers ?? [])
        .filter((tier) => tier.tier.type === 'context')
        .sort((a, b) => a.tier.size - b.tier.size);
      const firstTier = contextTiers[0];
      let longContext: LongContextDraft | null = null;
      if (firstTier !== undefined) {
        longContext = { kind: 'rates', thresholdTokens: firstTier.tier.size, rates: tierRates(firstTier, rates) };
      } else if (cost.context_over_200k !== undefined && cost.context_over_200k !== null) {
        longContext = { kind: 'rates', thresholdTokens: 200_000, rates: tierRates(cost.context_over_200k, rates) };
      }
      candidates.push({
        key,
        provider,
        rates,
        longContext,
        contextWindowTokens: positiveOrNull(model.limit?.context),
        maxOutputTokens: positiveOrNull(model.limit?.output),
        source: `${sourceLabel} (models.dev, provider ${provider})`,
      });
    }
  }
  return { kind: 'ok', candidates };
}
