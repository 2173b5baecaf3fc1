/**
 * A cachecost price-file entry (`cachecost-price-file.ts`) as a price draft. Apart from the schema so
 * that the bundled table is built without loading zod: the bundled file is package data, checked
 * against the schema by test/cost/bundled-prices.test.ts, not user input.
 */
import type { CachecostPriceEntry } from './cachecost-price-file.js';
import { usdPerMTokToPicoPerToken } from './money.js';
import type { PriceDraft, PriceOrigin, RatesDraft } from './price-table.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

function optionalRate(value: number | null | undefined): number | null | undefined {
  return value === undefined || value === null ? value : usdPerMTokToPicoPerToken(value);
}

function ratesDraft(rates: CachecostPriceEntry['usdPerMTok']): RatesDraft {
  return {
    input: usdPerMTokToPicoPerToken(rates.input),
    output: usdPerMTokToPicoPerToken(rates.output),
    cacheRead: optionalRate(rates.cacheRead),
    cacheWrite5m: optionalRate(rates.cacheWrite5m),
    cacheWrite1h: optionalRate(rates.cacheWrite1h),
  };
}

/** One parsed entry as a draft (USD/MTok → pUSD/token; inclusive days → [from, to) ms). */
export function cachecostEntryToDraft(entry: CachecostPriceEntry, origin: PriceOrigin): PriceDraft {
  const longContext = entry.longContext ?? null;
  return {
    id: entry.id,
    aliases: entry.aliases,
    provider: entry.provider,
    cacheFamily: entry.cacheFamily,
    contextWindowTokens: entry.contextWindowTokens,
    maxOutputTokens: entry.maxOutputTokens,
    validFromMs: entry.validFrom === undefined || entry.validFrom === null ? null : dayStartMs(entry.validFrom),
    validToMs: entry.validTo === undefined || entry.validTo === null ? null : dayStartMs(entry.validTo) + DAY_MS,
    ratesPicoUsdPerToken: ratesDraft(entry.usdPerMTok),
    longContext:
      longContext === null
        ? null
        : 'usdPerMTok' in longContext
          ? { kind: 'rates', thresholdTokens: longContext.thresholdTokens, rates: ratesDraft(longContext.usdPerMTok) }
          : {
              kind: 'multipliers',
              thresholdTokens: longContext.thresholdTokens,
              inputMultiplier: longContext.inputMultiplier,
              outputMultiplier: longContext.outputMultiplier,
            },
    source: entry.source,
    date: entry.date,
    origin,
  };
}
