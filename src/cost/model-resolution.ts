/**
 * From a model name as a log spells it to a canonical price-table id, and from there to the
 * cache rules. Resolution is exact, never fuzzy: an unknown name is unpriced, not priced as a
 * look-alike of another family.
 */
import { cacheFamilyForProvider, cacheRulesFor, CACHE_RULES } from '../provider/cache-rules.js';
import type { CacheRules } from '../provider/cache-rules.js';
import { priceAt } from './price-table.js';
import type { ModelPrice, PriceTable } from './price-table.js';

/** How a name matched: its own id or alias, or one of the two documented normalizations. */
export type ResolutionBasis = 'id' | 'alias' | 'provider-prefix' | 'date-suffix';

export type ModelResolution = { readonly id: string; readonly basis: ResolutionBasis };

const DATE_SUFFIX = /^(.+)-(20\d{6})$/;

function lookup(table: PriceTable, name: string): ModelResolution | null {
  const id = table.idByName.get(name.toLowerCase());
  if (id === undefined) return null;
  return { id, basis: id.toLowerCase() === name.toLowerCase() ? 'id' : 'alias' };
}

function providerOf(table: PriceTable, id: string): string | null {
  const windows = table.windowsById.get(id);
  return windows?.[0]?.provider ?? null;
}

function withoutDateSuffix(table: PriceTable, name: string): ModelResolution | null {
  const match = DATE_SUFFIX.exec(name);
  if (match?.[1] === undefined) return null;
  const found = lookup(table, match[1]);
  return found === null ? null : { id: found.id, basis: 'date-suffix' };
}

/**
 * The canonical id of `name`, or null (unpriced). In order: the id or an alias (case-insensitive);
 * then without a leading `<provider>/` when that provider is the model's own (`anthropic/claude-…`,
 * never `openrouter/…`); then without a `-YYYYMMDD` date suffix when the table has the undated id.
 */
export function resolveModelName(table: PriceTable, name: string): ModelResolution | null {
  const direct = lookup(table, name) ?? withoutDateSuffix(table, name);
  if (direct !== null) return direct;
  const slash = name.indexOf('/');
  if (slash <= 0) return null;
  const prefix = name.slice(0, slash).toLowerCase();
  const rest = name.slice(slash + 1);
  const inner = lookup(table, rest) ?? withoutDateSuffix(table, rest);
  if (inner === null || providerOf(table, inner.id)?.toLowerCase() !== prefix) return null;
  return { id: inner.id, basis: 'provider-prefix' };
}

/**
 * The resolved id of each model name, by table (null: unknown). A table is never changed once built,
 * and a run prices ~10^4–10^6 rows of a handful of names: resolving one (lower-cased, looked up, its
 * prefix and date suffix tried) is worked out once per table.
 */
const resolvedIds = new WeakMap<PriceTable, Map<string, string | null>>();

/** `resolveModelName(table, name)?.id ?? null`, remembered per table. */
export function modelIdOf(table: PriceTable, name: string): string | null {
  let ids = resolvedIds.get(table);
  if (ids === undefined) {
    ids = new Map();
    resolvedIds.set(table, ids);
  }
  let id = ids.get(name);
  if (id === undefined) {
    id = resolveModelName(table, name)?.id ?? null;
    ids.set(name, id);
  }
  return id;
}

/** The price of `name` at `timestampMs`, or null when the name is unknown or no window covers the time. */
export function priceForModel(table: PriceTable, name: string, timestampMs: number | null): ModelPrice | null {
  const resolved = resolveModelName(table, name);
  return resolved === null ? null : priceAt(table, resolved.id, timestampMs);
}

/** Facts of a model independent of time (window, max output, family): its latest window. */
export function modelFacts(table: PriceTable, name: string): ModelPrice | null {
  const resolved = resolveModelName(table, name);
  if (resolved === null) return null;
  const windows = table.windowsById.get(resolved.id);
  return windows?.[windows.length - 1] ?? null;
}

/** Where the cache rules of a request came from. */
export type CacheRulesBasis = 'price-table' | 'provider' | 'default';

/**
 * The cache rules for a request's model: the price table's family and per-model minimum when the
 * model is known; else the family of its provider; else OpenAI-style automatic caching (the
 * OpenAI-compatible default), reported as `default` so a report can say so.
 */
export function resolveCacheRules(
  table: PriceTable,
  model: string,
  provider: string | null,
): { readonly rules: CacheRules; readonly basis: CacheRulesBasis } {
  const facts = modelFacts(table, model);
  if (facts !== null) return { rules: cacheRulesFor(facts.cacheFamily, facts.id), basis: 'price-table' };
  const family = provider === null ? null : cacheFamilyForProvider(provider, model);
  if (family !== null) return { rules: cacheRulesFor(family, model.toLowerCase()), basis: 'provider' };
  return { rules: CACHE_RULES.openai, basis: 'default' };
}
