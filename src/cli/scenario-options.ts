/**
 * Parsing of the options that choose scenarios (`--scenario`, `--target`, `--window`, …): text
 * in, the families and `ScenarioOverrides` the use cases take out, or a one-line `BAD_ARGUMENT`.
 */
import type { Argv } from 'yargs';
import { CachecostError } from '../session/errors.js';
import type { ScenarioFamily, ScenarioOverrides } from '../simulate/scenario.js';
import { SCENARIO_FAMILY_NAMES as SCENARIO_FAMILIES } from '../simulate/scenario-families.js';

/** What `--target`, `--scenario` and `--ttl` say in one command's help (the other options read alike everywhere). */
export type ScenarioOptionHelp = { readonly target: string; readonly scenario: string; readonly ttl: string };

/**
 * The options that choose and shape scenarios (`--target`, `--buffer`, `--preserve-turns`,
 * `--scenario`, `--ttl`), declared once for every command that replays; the engine and policy
 * options beside them are `withEngineOptions` (shared-options.ts).
 */
export function withScenarioOptions<T>(y: Argv<T>, help: ScenarioOptionHelp) {
  return y
    .option('target', { type: 'string', requiresArg: true, describe: help.target })
    .option('buffer', {
      type: 'string',
      requiresArg: true,
      describe: 'Tokens below the limit where compaction triggers [13000]',
    })
    .option('preserve-turns', {
      type: 'string',
      requiresArg: true,
      describe: 'User turns kept verbatim by a compaction [2]',
    })
    .option('scenario', { type: 'string', array: true, default: [] as string[], describe: help.scenario })
    .option('ttl', { choices: ['5m', '1h'] as const, describe: help.ttl });
}

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
  if (values.some((value) => value === 0))
    throw new CachecostError('BAD_ARGUMENT', `--${option} values must be positive`);
  return values;
}

function oneOf<T extends string>(raw: string | undefined, allowed: readonly T[], option: string): T | undefined {
  if (raw === undefined) return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new CachecostError('BAD_ARGUMENT', `--${option} must be one of ${allowed.join(', ')}; got "${raw}"`);
}

/** The families asked for (`--scenario a,b` or repeated); the default is FreeCode and the no-compaction baseline. */
export function parseFamilies(raw: readonly string[]): ScenarioFamily[] {
  const names = raw
    .flatMap((entry) => entry.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
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
  /** The policy families' options (observation masking, clear-tool-uses, opencode). */
  readonly policy?: PolicyArgs | undefined;
};

/** Whether any engine or scenario option was given on the command line (policy options aside). */
export function anyScenarioOption(args: ScenarioOptionText): boolean {
  return [
    args.target,
    args.window,
    args.buffer,
    args.preserveTurns,
    args.preserveTokens,
    args.ttl,
    args.pruning,
    args.summarizer,
    args.selector,
  ].some((value) => value !== undefined);
}

/** The options of the context policies of the field (scenario.ts `editing`), as typed. */
export type PolicyArgs = {
  readonly keepResults: string | undefined;
  readonly clearTrigger: string | undefined;
  readonly clearKeep: string | undefined;
  readonly clearAtLeast: string | undefined;
  readonly clearExclude: string | undefined;
  readonly pruneProtect: string | undefined;
  readonly pruneMinimum: string | undefined;
};

/** No policy option given. */
export const NO_POLICY_ARGS: PolicyArgs = {
  keepResults: undefined,
  clearTrigger: undefined,
  clearKeep: undefined,
  clearAtLeast: undefined,
  clearExclude: undefined,
  pruneProtect: undefined,
  pruneMinimum: undefined,
};

/** A comma list of counts (`4,6,10`; token counts accept `100k`), ascending, without duplicates. */
export function countList(raw: string, option: string, { allowZero }: { readonly allowZero: boolean }): number[] {
  const values = raw.split(',').map((part) => parseTokenCount(part, option));
  if (!allowZero && values.some((value) => value === 0))
    throw new CachecostError('BAD_ARGUMENT', `--${option} values must be positive`);
  return [...new Set(values)].sort((a, b) => a - b);
}

/** Tool names (`--clear-exclude Read,Grep`): non-empty, as written. */
function toolNames(raw: string, option: string): string[] {
  const names = raw.split(',').map((name) => name.trim());
  if (names.some((name) => name === ''))
    throw new CachecostError('BAD_ARGUMENT', `--${option} has an empty tool name in "${raw}"`);
  return [...new Set(names)];
}

/**
 * The policy families' overrides (only those given). `list` parses the three options that make
 * one scenario per value: a comma list in `simulate` and `flags`, ranges too in `tune`.
 */
export function parsePolicyOverrides(
  policy: PolicyArgs,
  list: (raw: string, option: string, opts: { readonly allowZero: boolean }) => number[] = countList,
): ScenarioOverrides {
  const single = (raw: string | undefined, option: string): number | undefined =>
    raw === undefined ? undefined : parseTokenCount(raw, option);
  const clearKeepToolUses = single(policy.clearKeep, 'clear-keep');
  const clearAtLeastTokens = single(policy.clearAtLeast, 'clear-at-least');
  const pruneMinimumTokens = single(policy.pruneMinimum, 'prune-minimum');
  return {
    ...(policy.keepResults !== undefined
      ? { keepToolResults: list(policy.keepResults, 'keep-results', { allowZero: true }) }
      : {}),
    ...(policy.clearTrigger !== undefined
      ? { clearTriggerTokens: list(policy.clearTrigger, 'clear-trigger', { allowZero: false }) }
      : {}),
    ...(clearKeepToolUses !== undefined ? { clearKeepToolUses } : {}),
    ...(clearAtLeastTokens !== undefined ? { clearAtLeastTokens } : {}),
    ...(policy.clearExclude !== undefined
      ? { clearExcludeTools: toolNames(policy.clearExclude, 'clear-exclude') }
      : {}),
    ...(policy.pruneProtect !== undefined
      ? { pruneProtectTokens: list(policy.pruneProtect, 'prune-protect', { allowZero: true }) }
      : {}),
    ...(pruneMinimumTokens !== undefined ? { pruneMinimumTokens } : {}),
  };
}

/** Scenario overrides from the options (only those given). */
export function parseOverrides(args: ScenarioOptionText): ScenarioOverrides {
  const pruning = oneOf(args.pruning, ['prefix-stable', 'sliding-legacy', 'none', 'recorded'] as const, 'pruning');
  const summarizer = oneOf(args.summarizer, ['llm', 'heuristic'] as const, 'summarizer');
  const selector = oneOf(args.selector, ['freecode', 'strict'] as const, 'selector');
  return {
    ...(args.target !== undefined ? { targetTokens: positiveList(args.target, 'target') } : {}),
    ...(args.window !== undefined ? { windowTokens: positiveList(args.window, 'window')[0] ?? 0 } : {}),
    ...(args.buffer !== undefined ? { bufferTokens: parseTokenCount(args.buffer, 'buffer') } : {}),
    ...(args.preserveTurns !== undefined
      ? { preserveRecentTurns: parseTokenCount(args.preserveTurns, 'preserve-turns') }
      : {}),
    ...(args.preserveTokens !== undefined
      ? { maxPreserveRecentTokens: parseTokenCount(args.preserveTokens, 'preserve-tokens') }
      : {}),
    ...(args.ttl !== undefined ? { ttl: args.ttl } : {}),
    ...(pruning !== undefined ? { pruning } : {}),
    ...(summarizer !== undefined ? { summarizer } : {}),
    ...(selector !== undefined ? { selector } : {}),
    ...parsePolicyOverrides(args.policy ?? NO_POLICY_ARGS),
  };
}
