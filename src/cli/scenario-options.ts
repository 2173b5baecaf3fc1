/**
 * Parsing of the options that choose scenarios (`--scenario`, `--target`, `--window`, …): text
 * in, the families and `ScenarioOverrides` the use cases take out, or a one-line `BAD_ARGUMENT`.
 */
import { CachecostError } from '../session/errors.js';
import type { ScenarioFamily, ScenarioOverrides } from '../simulate/scenario.js';
import { SCENARIO_FAMILIES } from '../simulate/scenario.js';

/** A token count as typed: `120000`, `120k`, `1m` (K = 1,000, M = 1,000,000). */
export function parseTokenCount(raw: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(raw);
  const scale = match?.[2]?.toLowerCase() === 'k' ? 1_000 : match?.[2]?.toLowerCase() === 'm' ? 1_000_000 : 1;
  const value = match === null ? Number.NaN : Math.round(Number(match[1]) * scale);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new CachecostError('BAD_ARGUMENT', `--${option} expects a token count such as 120000 or 120k, got "${raw}"`);
  }
  return value;
}

function positiveList(raw: string, option: string): number[] {
  const values = raw.split(',').map((part) => parseTokenCount(part, option));
  if (values.some((value) => value === 0)) throw new CachecostError('BAD_ARGUMENT', `--${option} values must be positive`);
  return values;
}

function oneOf<T extends string>(raw: string | undefined, allowed: readonly T[], option: string): T | undefined {
  if (raw === undefined) return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new CachecostError('BAD_ARGUMENT', `--${option} must be one of ${allowed.join(', ')}; got "${raw}"`);
}

/** The families asked for (`--scenario a,b` or repeated); the default is FreeCode and the no-compaction baseline. */
export function parseFamilies(raw: readonly string[]): ScenarioFamily[] {
  const names = raw.flatMap((entry) => entry.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) return ['freecode', 'none'];
  return names.map((name) => {
    const family = oneOf(name, SCENARIO_FAMILIES, 'scenario');
    if (family === undefined) throw new CachecostError('BAD_ARGUMENT', '--scenario is empty');
    return family;
  });
}

/**
 * The engine and scenario options as typed, shared by `simulate`, `flags` and `tune` (each passes
 * the ones it treats as fixed; `tune` sweeps target, buffer, preserve-turns and TTL itself).
 */
export type ScenarioOptionText = {
  readonly target?: string | undefined;
  readonly window?: string | undefined;
  readonly buffer?: string | undefined;
  readonly preserveTurns?: string | undefined;
  readonly preserveTokens?: string | undefined;
  readonly ttl?: '5m' | '1h' | undefined;
  readonly pruning?: string | undefined;
  readonly summarizer?: string | undefined;
  readonly selector?: string | undefined;
};

/** Scenario overrides from the options (only those given). */
export function parseOverrides(args: ScenarioOptionText): ScenarioOverrides {
  const pruning = oneOf(args.pruning, ['prefix-stable', 'sliding-legacy', 'none', 'recorded'] as const, 'pruning');
  const summarizer = oneOf(args.summarizer, ['llm', 'heuristic'] as const, 'summarizer');
  const selector = oneOf(args.selector, ['freecode', 'strict'] as const, 'selector');
  return {
    ...(args.target !== undefined ? { targetTokens: positiveList(args.target, 'target') } : {}),
    ...(args.window !== undefined ? { windowTokens: positiveList(args.window, 'window')[0] ?? 0 } : {}),
    ...(args.buffer !== undefined ? { bufferTokens: parseTokenCount(args.buffer, 'buffer') } : {}),
    ...(args.preserveTurns !== undefined ? { preserveRecentTurns: parseTokenCount(args.preserveTurns, 'preserve-turns') } : {}),
    ...(args.preserveTokens !== undefined ? { maxPreserveRecentTokens: parseTokenCount(args.preserveTokens, 'preserve-tokens') } : {}),
    ...(args.ttl !== undefined ? { ttl: args.ttl } : {}),
    ...(pruning !== undefined ? { pruning } : {}),
    ...(summarizer !== undefined ? { summarizer } : {}),
    ...(selector !== undefined ? { selector } : {}),
  };
}
