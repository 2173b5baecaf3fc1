/**
 * The cachecost price-file format: the bundled `prices.json`, also accepted by `--pricing` for
 * dated overrides. Prices in USD per million tokens; validity dates are inclusive UTC days.
 */
import { z } from 'zod';
import { CACHE_FAMILIES } from '../provider/cache-rules.js';

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

export { cachecostEntryToDraft } from './cachecost-entry.js';
