/**
 * `--pricing <file>`: a user's models.dev `api.json`, LiteLLM price map or cachecost price file,
 * detected by shape, validated, and overlaid on the bundled table. No network, ever.
 *
 * Overlay rules (README "Prices"):
 * - a file entry whose name resolves to a bundled model *of the same provider* replaces that
 *   model's prices and limits for all dates (the file is what the user wants applied); when
 *   several entries resolve to one model, an exact id beats an alias beats a normalized name,
 *   then file order;
 * - an entry that resolves to a bundled model of another provider (a reseller's copy) is ignored;
 * - any other entry is added under `<provider>/<key>`, and under `<key>` too unless two
 *   providers of the file offer that key (an ambiguous name is never guessed);
 * - cache prices the file leaves out are derived from the provider's rules and marked derived.
 */
import { readFile, stat } from 'node:fs/promises';
import { CachecostError } from '../session/errors.js';
import { cacheFamilyForProvider } from '../provider/cache-rules.js';
import type { CacheFamily } from '../provider/cache-rules.js';
import { CachecostPriceFileSchema, cachecostEntryToDraft } from './cachecost-price-file.js';
import { looksLikeLiteLLM, parseLiteLLM } from './litellm.js';
import { resolveModelName } from './model-resolution.js';
import type { ResolutionBasis } from './model-resolution.js';
import { looksLikeModelsDev, parseModelsDev } from './models-dev.js';
import { issuePath } from './price-candidate.js';
import type { CandidatesResult, PriceCandidate } from './price-candidate.js';
import { buildPriceTable, normalizePrice } from './price-table.js';
import type { ModelPrice, PriceDraft, PriceOrigin, PriceTable } from './price-table.js';

export type PricingFileFormat = 'models.dev' | 'litellm' | 'cachecost';

export type OverlayReport = {
  readonly format: PricingFileFormat;
  /** Bundled ids whose prices the file replaced. */
  readonly replaced: readonly string[];
  /** Ids the file added. */
  readonly added: readonly string[];
  /** File keys ignored because they name another provider's bundled model. */
  readonly ignored: number;
};

export type PricingOverlay = { readonly table: PriceTable; readonly report: OverlayReport };

/** Which shape a parsed price file has, or null when it is none of the three. */
export function detectPricingFormat(json: unknown): PricingFileFormat | null {
  if (
    typeof json === 'object' &&
    json !== null &&
    !Array.isArray(json) &&
    'format' in json &&
    json.format === 'cachecost-prices'
  ) {
    return 'cachecost';
  }
  if (looksLikeModelsDev(json)) return 'models.dev';
  if (looksLikeLiteLLM(json)) return 'litellm';
  return null;
}

const PROVIDER_SYNONYMS: Readonly<Record<string, string>> = { gemini: 'google' };

function canonicalProvider(provider: string): string {
  const lower = provider.toLowerCase();
  return PROVIDER_SYNONYMS[lower] ?? lower;
}

const BASIS_RANK: Readonly<Record<ResolutionBasis, number>> = {
  id: 0,
  alias: 1,
  'provider-prefix': 2,
  'date-suffix': 3,
};

function familyOfNew(candidate: PriceCandidate): CacheFamily {
  const known = cacheFamilyForProvider(canonicalProvider(candidate.provider), candidate.key);
  if (known !== null) return known;
  // An unknown provider that publishes a cache-read price caches automatically (the OpenAI-compatible default).
  return candidate.rates.cacheRead === undefined || candidate.rates.cacheRead === null ? 'no-cache' : 'openai';
}

function draftFromCandidate(
  candidate: PriceCandidate,
  identity: Pick<PriceDraft, 'id' | 'aliases' | 'provider' | 'cacheFamily'>,
  fallback: ModelPrice | null,
  date: string,
  origin: PriceOrigin,
): PriceDraft {
  return {
    ...identity,
    contextWindowTokens: candidate.contextWindowTokens ?? fallback?.contextWindowTokens ?? null,
    maxOutputTokens: candidate.maxOutputTokens ?? fallback?.maxOutputTokens ?? null,
    validFromMs: null,
    validToMs: null,
    ratesPicoUsdPerToken: candidate.rates,
    longContext: candidate.longContext,
    source: candidate.source,
    date,
    origin,
  };
}

function rebuild(prices: readonly ModelPrice[], label: string): PriceTable {
  const result = buildPriceTable(prices);
  if (result.kind === 'invalid')
    throw new CachecostError('BAD_PRICING_FILE', `pricing file ${label}: ${result.reason}`);
  return result.table;
}

/** Overlays third-party candidates on `base` by the rules in this module's comment. */
export function overlayCandidates(
  base: PriceTable,
  candidates: readonly PriceCandidate[],
  format: 'models.dev' | 'litellm',
  date: string,
  label: string,
): PricingOverlay {
  const winners = new Map<string, { candidate: PriceCandidate; rank: number }>();
  const fresh: PriceCandidate[] = [];
  let ignored = 0;
  for (const candidate of candidates) {
    const resolved = resolveModelName(base, candidate.key);
    if (resolved === null) {
      fresh.push(candidate);
      continue;
    }
    const bundledProvider = base.windowsById.get(resolved.id)?.[0]?.provider;
    if (bundledProvider === undefined || canonicalProvider(bundledProvider) !== canonicalProvider(candidate.provider)) {
      ignored += 1;
      continue;
    }
    const rank = BASIS_RANK[resolved.basis];
    const current = winners.get(resolved.id);
    if (current === undefined || rank < current.rank) winners.set(resolved.id, { candidate, rank });
  }

  const origin: PriceOrigin = format;
  const prices: ModelPrice[] = base.prices.filter((price) => !winners.has(price.id));
  for (const [id, { candidate }] of winners) {
    const windows = base.windowsById.get(id) ?? [];
    const latest = windows[windows.length - 1] ?? null;
    if (latest === null) continue;
    const identity = { id, aliases: latest.aliases, provider: latest.provider, cacheFamily: latest.cacheFamily };
    prices.push(normalizePrice(draftFromCandidate(candidate, identity, latest, date, origin)));
  }

  const providersByKey = new Map<string, Set<string>>();
  for (const candidate of fresh) {
    const providers = providersByKey.get(candidate.key.toLowerCase()) ?? new Set<string>();
    providers.add(canonicalProvider(candidate.provider));
    providersByKey.set(candidate.key.toLowerCase(), providers);
  }
  const taken = new Set<string>();
  const added: string[] = [];
  for (const candidate of fresh) {
    const provider = canonicalProvider(candidate.provider);
    const qualified = candidate.key.toLowerCase().startsWith(`${provider}/`)
      ? candidate.key
      : `${provider}/${candidate.key}`;
    if (taken.has(qualified.toLowerCase()) || base.idByName.has(qualified.toLowerCase())) continue;
    const unambiguous = (providersByKey.get(candidate.key.toLowerCase())?.size ?? 0) === 1;
    const aliases = unambiguous && qualified !== candidate.key ? [candidate.key] : [];
    if (aliases.some((alias) => taken.has(alias.toLowerCase()))) continue;
    taken.add(qualified.toLowerCase());
    for (const alias of aliases) taken.add(alias.toLowerCase());
    const identity = { id: qualified, aliases, provider, cacheFamily: familyOfNew(candidate) };
    prices.push(normalizePrice(draftFromCandidate(candidate, identity, null, date, origin)));
    added.push(qualified);
  }

  return {
    table: rebuild(prices, label),
    report: { format, replaced: [...winners.keys()].sort(), added, ignored },
  };
}

/** Overlays a cachecost-format file: its entries (all windows) replace every window of the model they name. */
export function overlayCachecostFile(base: PriceTable, json: unknown, label: string): PricingOverlay {
  const parsed = CachecostPriceFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CachecostError(
      'BAD_PRICING_FILE',
      `pricing file ${label}: ${issue === undefined ? 'invalid cachecost price file' : `${issuePath(issue.path)}: ${issue.message}`}`,
    );
  }
  const drafts = parsed.data.models.map((entry) => {
    const resolved = resolveModelName(base, entry.id);
    const draft = cachecostEntryToDraft(entry, 'cachecost-file');
    if (resolved === null) return draft;
    // Keep the bundled names of the model the entry replaces, so logs that used them still resolve.
    const bundledAliases = base.windowsById.get(resolved.id)?.[0]?.aliases ?? [];
    const aliases = [...new Set([...bundledAliases, ...draft.aliases, entry.id])].filter(
      (name) => name !== resolved.id,
    );
    return { ...draft, id: resolved.id, aliases };
  });
  const replacedIds = new Set(drafts.map((draft) => draft.id).filter((id) => base.windowsById.has(id)));
  const prices = [...base.prices.filter((price) => !replacedIds.has(price.id)), ...drafts.map(normalizePrice)];
  const added = [...new Set(drafts.map((draft) => draft.id).filter((id) => !replacedIds.has(id)))];
  return {
    table: rebuild(prices, label),
    report: { format: 'cachecost', replaced: [...replacedIds].sort(), added, ignored: 0 },
  };
}

/** Overlays already-parsed price-file JSON on `base`; `date` (YYYY-MM-DD) stamps third-party entries. */
export function overlayPricingJson(base: PriceTable, json: unknown, label: string, date: string): PricingOverlay {
  const format = detectPricingFormat(json);
  let result: CandidatesResult;
  switch (format) {
    case null:
      throw new CachecostError(
        'BAD_PRICING_FILE',
        `pricing file ${label}: not a models.dev api.json, a LiteLLM price map or a cachecost price file`,
      );
    case 'cachecost':
      return overlayCachecostFile(base, json, label);
    case 'models.dev':
      result = parseModelsDev(json, label);
      break;
    case 'litellm':
      result = parseLiteLLM(json, label);
      break;
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
  if (result.kind === 'invalid')
    throw new CachecostError('BAD_PRICING_FILE', `pricing file ${label}: ${result.reason}`);
  return overlayCandidates(base, result.candidates, format, date, label);
}

/** Reads `path` and overlays it on `base`; any unreadable or invalid file is `BAD_PRICING_FILE` with one line. */
export async function loadPricingFile(path: string, base: PriceTable): Promise<PricingOverlay> {
  let text: string;
  let date: string;
  try {
    const stats = await stat(path);
    // A FIFO would block the read forever; refuse anything that is not a regular file.
    if (!stats.isFile()) throw new CachecostError('BAD_PRICING_FILE', `pricing file ${path}: not a regular file`);
    text = await readFile(path, 'utf8');
    date = stats.mtime.toISOString().slice(0, 10);
  } catch (error) {
    if (error instanceof CachecostError) throw error;
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new CachecostError('BAD_PRICING_FILE', `pricing file ${path}: cannot read it (${reason})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'invalid JSON';
    throw new CachecostError('BAD_PRICING_FILE', `pricing file ${path}: not valid JSON (${reason ?? 'invalid JSON'})`, {
      cause: error,
    });
  }
  return overlayPricingJson(base, json, path, date);
}
