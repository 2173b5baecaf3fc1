/**
 * The cachecost price-file format: the bundled `prices.json`, also accepted by `--pricing` for
 * dated overrides. Prices in USD per million tokens; validity dates are inclusive UTC days.
 */
import { z } from 'zod';
import { CACHE_FAMILIES } from '../provider/cache-rules.js';
import { usdPerMTokToPicoPerToken } from './money.js';
import type { PriceDraft, PriceOrigin, RatesDraft } from './price-table.js';

const usd = z.number().nonnegative().finite();
const optionalUsd = usd.nullable().optional();
const tokens = z.number().int().positive();
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');

const UsdRatesSchema = z.strictObject({
  input: usd,
  output: usd,
  cacheRead: optionalUsd,
  cacheWrite5m: optionalUsd,
  cacheWrite1h: optionalUsd,
});

const LongContextSchema = z.union([
  z.strictObject({ thresholdTokens: tokens, inputMultiplier: usd, outputMultiplier: usd }),
  z.strictObject({ thresholdTokens: tokens, usdPerMTok: UsdRatesSchema }),
]);

const CacheFamilySchema = z.enum(CACHE_FAMILIES);

export const CachecostPriceEntrySchema = z.strictObject({
  id: z.string().min(1),
  aliases: z.array(z.string().min(1)).default([]),
  provider: z.string().min(1),
  cacheFamily: CacheFamilySchema,
  contextWindowTokens: tokens.nullable(),
  maxOutputTokens: tokens.nullable(),
  validFrom: isoDay.nullable().optional(),
  validTo: isoDay.nullable().optional(),
  usdPerMTok: UsdRatesSchema,
  longContext: LongContextSchema.nullable().optional(),
  source: z.string().min(1),
  date: z.string().min(1),
});
export type CachecostPriceEntry = z.infer<typeof CachecostPriceEntrySchema>;

export const CachecostPriceFileSchema = z.strictObject({
  format: z.literal('cachecost-prices'),
  version: z.literal(1),
  date: isoDay,
  description: z.string().optional(),
  models: z.array(CachecostPriceEntrySchema),
});
export type CachecostPriceFile = z.infer<typeof CachecostPriceFileSchema>;

const DAY_MS = 24 * 60 * 60 * 1000;

function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

function optionalRate(value: number | null | undefined): number | null | undefined {
  return value === undefined || value === null ? value : usdPerMTokToPicoPerToken(value);
}

function ratesDraft(rates: z.infer<typeof UsdRatesSchema>): RatesDraft {
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
