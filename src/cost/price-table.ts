/**
 * The resolved price table: one `ModelPrice` per model and validity window, rates as integer
 * pUSD per token (money.ts), long-context rates explicit per class, every derived field named.
 * Built from the bundled `prices.json` and optionally overlaid by a `--pricing` file.
 */
import type { CacheFamily } from '../provider/cache-rules.js';
import { CACHE_RATE_FIELDS, deriveCacheRates } from './derive-cache-prices.js';
import type { ClassRates, RatesDraft } from './derive-cache-prices.js';

export type { ClassRates, RatesDraft } from './derive-cache-prices.js';

/** Where a price entry came from. */
export type PriceOrigin = 'bundled' | 'cachecost-file' | 'models.dev' | 'litellm';

/** A long-context tier as a source states it: multipliers of the base rates, or explicit rates. */
export type LongContextDraft =
  | {
      readonly kind: 'multipliers';
      readonly thresholdTokens: number;
      readonly inputMultiplier: number;
      readonly outputMultiplier: number;
    }
  | { readonly kind: 'rates'; readonly thresholdTokens: number; readonly rates: RatesDraft };

/** A price entry before derivation, as every source is parsed into. */
export type PriceDraft = {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly provider: string;
  readonly cacheFamily: CacheFamily;
  readonly contextWindowTokens: number | null;
  readonly maxOutputTokens: number | null;
  /** Inclusive start, UTC ms; null = since ever. */
  readonly validFromMs: number | null;
  /** Exclusive end, UTC ms; null = still valid. */
  readonly validToMs: number | null;
  readonly ratesPicoUsdPerToken: RatesDraft;
  readonly longContext: LongContextDraft | null;
  readonly source: string;
  readonly date: string;
  readonly origin: PriceOrigin;
};

export type LongContextTier = {
  /** The premium applies when the whole prompt (all input classes) exceeds this. */
  readonly thresholdTokens: number;
  readonly ratesPicoUsdPerToken: ClassRates;
};

export type ModelPrice = {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly provider: string;
  readonly cacheFamily: CacheFamily;
  readonly contextWindowTokens: number | null;
  readonly maxOutputTokens: number | null;
  readonly validFromMs: number | null;
  readonly validToMs: number | null;
  readonly ratesPicoUsdPerToken: ClassRates;
  readonly longContext: LongContextTier | null;
  /** Fields filled in from provider rules, e.g. `cacheWrite1h`, `longContext.cacheRead`. */
  readonly derived: readonly string[];
  readonly source: string;
  readonly date: string;
  readonly origin: PriceOrigin;
};

export type PriceTable = {
  /** All windows of all models, ordered by id then start. */
  readonly prices: readonly ModelPrice[];
  /** Windows of each canonical id, ordered by start. */
  readonly windowsById: ReadonlyMap<string, readonly ModelPrice[]>;
  /** Lower-cased id or alias → canonical id. */
  readonly idByName: ReadonlyMap<string, string>;
};

function scaleRate(rate: number | null, multiplier: number): number | null {
  return rate === null ? null : Math.round(rate * multiplier);
}

function longContextTier(base: ClassRates, draft: LongContextDraft, derived: string[]): LongContextTier {
  switch (draft.kind) {
    case 'multipliers': {
      // The multipliers stack on cache rates (pricing.md §1.1: long-context 1h write on Sonnet = $12/MTok).
      const m = draft.inputMultiplier;
      return {
        thresholdTokens: draft.thresholdTokens,
        ratesPicoUsdPerToken: {
          input: Math.round(base.input * m),
          output: Math.round(base.output * draft.outputMultiplier),
          cacheRead: scaleRate(base.cacheRead, m),
          cacheWrite5m: scaleRate(base.cacheWrite5m, m),
          cacheWrite1h: scaleRate(base.cacheWrite1h, m),
        },
      };
    }
    case 'rates': {
      const given = draft.rates;
      // Cache rates a source leaves out are the base cache rates times the tier's input multiplier.
      const inputMultiplier = base.input === 0 ? 1 : given.input / base.input;
      const stacked = (field: 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h'): number | null => {
        const value = given[field];
        if (value !== undefined) return value;
        const rate = scaleRate(base[field], inputMultiplier);
        if (rate !== null) derived.push(`longContext.${field}`);
        return rate;
      };
      return {
        thresholdTokens: draft.thresholdTokens,
        ratesPicoUsdPerToken: {
          input: given.input,
          output: given.output,
          cacheRead: stacked('cacheRead'),
          cacheWrite5m: stacked('cacheWrite5m'),
          cacheWrite1h: stacked('cacheWrite1h'),
        },
      };
    }
    default: {
      const unreachable: never = draft;
      return unreachable;
    }
  }
}

/** A draft with its missing cache rates derived from its family's rules and its tier made explicit. */
export function normalizePrice(draft: PriceDraft): ModelPrice {
  const { rates, derived: derivedBase } = deriveCacheRates(draft.cacheFamily, draft.ratesPicoUsdPerToken);
  const derived: string[] = [...derivedBase];
  const longContext = draft.longContext === null ? null : longContextTier(rates, draft.longContext, derived);
  return {
    id: draft.id,
    aliases: draft.aliases,
    provider: draft.provider,
    cacheFamily: draft.cacheFamily,
    contextWindowTokens: draft.contextWindowTokens,
    maxOutputTokens: draft.maxOutputTokens,
    validFromMs: draft.validFromMs,
    validToMs: draft.validToMs,
    ratesPicoUsdPerToken: rates,
    longContext,
    derived,
    source: draft.source,
    date: draft.date,
    origin: draft.origin,
  };
}

export type PriceTableResult =
  { readonly kind: 'ok'; readonly table: PriceTable } | { readonly kind: 'invalid'; readonly reason: string };

function rangesOverlap(a: ModelPrice, b: ModelPrice): boolean {
  const aFrom = a.validFromMs ?? Number.NEGATIVE_INFINITY;
  const aTo = a.validToMs ?? Number.POSITIVE_INFINITY;
  const bFrom = b.validFromMs ?? Number.NEGATIVE_INFINITY;
  const bTo = b.validToMs ?? Number.POSITIVE_INFINITY;
  return aFrom < bTo && bFrom < aTo;
}

function checkRates(rates: ClassRates): string | null {
  for (const field of ['input', 'output', ...CACHE_RATE_FIELDS] as const) {
    const rate = rates[field];
    if (rate !== null && (!Number.isSafeInteger(rate) || rate < 0))
      return `${field} rate ${String(rate)} is not a non-negative amount`;
  }
  return null;
}

/**
 * Indexes normalized prices, checking that windows of one id do not overlap, that no name (id or
 * alias, case-insensitive) points to two models, and that every id's windows agree on its names.
 */
export function buildPriceTable(prices: readonly ModelPrice[]): PriceTableResult {
  const windowsById = new Map<string, ModelPrice[]>();
  for (const price of prices) {
    const problem =
      checkRates(price.ratesPicoUsdPerToken) ??
      (price.longContext === null ? null : checkRates(price.longContext.ratesPicoUsdPerToken));
    if (problem !== null) return { kind: 'invalid', reason: `${price.id}: ${problem}` };
    if (price.validFromMs !== null && price.validToMs !== null && price.validFromMs >= price.validToMs) {
      return { kind: 'invalid', reason: `${price.id}: validFrom is not before validTo` };
    }
    const windows = windowsById.get(price.id) ?? [];
    for (const other of windows) {
      if (rangesOverlap(other, price)) return { kind: 'invalid', reason: `${price.id}: two prices overlap in time` };
    }
    windows.push(price);
    windowsById.set(price.id, windows);
  }
  const idByName = new Map<string, string>();
  for (const [id, windows] of windowsById) {
    windows.sort((a, b) => (a.validFromMs ?? Number.NEGATIVE_INFINITY) - (b.validFromMs ?? Number.NEGATIVE_INFINITY));
    for (const window of windows) {
      for (const name of [id, ...window.aliases]) {
        const key = name.toLowerCase();
        const existing = idByName.get(key);
        if (existing !== undefined && existing !== id) {
          return { kind: 'invalid', reason: `model name "${name}" names both ${existing} and ${id}` };
        }
        idByName.set(key, id);
      }
    }
  }
  const ordered = [...windowsById.keys()].sort().flatMap((id) => windowsById.get(id) ?? []);
  return { kind: 'ok', table: { prices: ordered, windowsById, idByName } };
}

/** The window of `id` in effect at `timestampMs` (null timestamp: the open-ended current price); null when none. */
export function priceAt(table: PriceTable, id: string, timestampMs: number | null): ModelPrice | null {
  const windows = table.windowsById.get(id);
  if (windows === undefined) return null;
  for (const window of windows) {
    if (timestampMs === null) {
      if (window.validToMs === null) return window;
    } else if (
      (window.validFromMs === null || window.validFromMs <= timestampMs) &&
      (window.validToMs === null || timestampMs < window.validToMs)
    ) {
      return window;
    }
  }
  return null;
}
