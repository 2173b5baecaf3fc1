/**
 * Options several commands declare alike: the log paths, and the engine and price options that
 * `simulate`, `flags` and `tune` apply to their scenarios. One declaration, so help texts and
 * parsing cannot drift apart between commands.
 */
import type { Argv } from 'yargs';
import type { PolicyArgs } from './scenario-options.js';

/** What `[paths..]` means for every command that reads logs. */
export const PATHS_DESCRIPTION =
  'Log files or directories of any supported agent [default: every default location that exists: $FREECODE_HOME or ~/.freecode, Claude Code projects, Codex sessions, opencode storage]';

/** The `[paths..]` positional. */
export function withPaths<T>(y: Argv<T>) {
  return y.positional('paths', { type: 'string', array: true, describe: PATHS_DESCRIPTION });
}

/** `--pricing <file>`: a models.dev `api.json` or a LiteLLM price map over the bundled table. */
export function withPricing<T>(y: Argv<T>) {
  return y.option('pricing', {
    type: 'string',
    requiresArg: true,
    describe: 'Price file overlaying the bundled table: models.dev api.json or a LiteLLM price map',
  });
}

/** `PolicyArgs` out of the parsed argv (yargs' kebab-case keys). */
export function policyArgs(args: Record<string, unknown>): PolicyArgs {
  const text = (key: string): string | undefined => {
    const value = args[key];
    return value === undefined ? undefined : String(value);
  };
  return {
    keepResults: text('keep-results'),
    clearTrigger: text('clear-trigger'),
    clearKeep: text('clear-keep'),
    clearAtLeast: text('clear-at-least'),
    clearExclude: text('clear-exclude'),
    pruneProtect: text('prune-protect'),
    pruneMinimum: text('prune-minimum'),
  };
}

/** Whether any policy option was given. */
export function anyPolicyOption(policy: PolicyArgs): boolean {
  return Object.values(policy).some((value) => value !== undefined);
}

/** Options of the policy families (observation masking, clear-tool-uses, opencode). */
function withPolicyOptions<T>(y: Argv<T>) {
  return y
    .option('keep-results', {
      type: 'string',
      requiresArg: true,
      describe:
        'observation-masking: tool results kept verbatim (M); a list makes one scenario each (tune: the curve, default 1..20) [10]',
    })
    .option('clear-trigger', {
      type: 'string',
      requiresArg: true,
      describe:
        'clear-tool-uses: prompt tokens above which old tool results are cleared; a list makes one scenario each (tune: the curve, default 40k..200k:20k) [100000]',
    })
    .option('clear-keep', {
      type: 'string',
      requiresArg: true,
      describe: 'clear-tool-uses: most recent tool uses kept [3]',
    })
    .option('clear-at-least', {
      type: 'string',
      requiresArg: true,
      describe: 'clear-tool-uses: clear only when at least this many tokens are freed [0]',
    })
    .option('clear-exclude', {
      type: 'string',
      requiresArg: true,
      describe: 'clear-tool-uses: tool names never cleared, comma list [none]',
    })
    .option('prune-protect', {
      type: 'string',
      requiresArg: true,
      describe:
        'opencode: recent tool-output tokens never pruned; a list makes one scenario each (tune: the curve, default 10k..80k:10k) [40000]',
    })
    .option('prune-minimum', {
      type: 'string',
      requiresArg: true,
      describe: 'opencode: prune only when more than this many tokens go [20000]',
    });
}

/** Engine options that override every scenario's family defaults (parsed by `parseOverrides`). */
export function withEngineOptions<T>(y: Argv<T>) {
  return withPricing(
    withPolicyOptions(y)
      .option('window', { type: 'string', requiresArg: true, describe: "Override the model's context window (tokens)" })
      .option('preserve-tokens', {
        type: 'string',
        requiresArg: true,
        describe: 'Token cap on the preserved recent block [8000]',
      })
      .option('pruning', {
        type: 'string',
        requiresArg: true,
        describe: 'Tool-result pruning: prefix-stable, sliding-legacy, none, recorded [family default]',
      })
      .option('summarizer', {
        type: 'string',
        requiresArg: true,
        describe: 'Compaction summarizer: llm (priced as its own request) or heuristic [llm]',
      })
      .option('selector', {
        type: 'string',
        requiresArg: true,
        describe: 'Compaction selector: freecode (literal drop-from-front) or strict (whole turns) [freecode]',
      }),
  );
}

/** `--host` and `--run-id`: how a run names itself in the `runs` table and the export's partitions. */
export function withRunOptions<T>(y: Argv<T>) {
  return y
    .option('host', {
      type: 'string',
      requiresArg: true,
      describe: "This machine's name in the rows written [the OS host name]",
    })
    .option('run-id', {
      type: 'string',
      requiresArg: true,
      describe: 'Id of this run in the runs table [a random UUID]',
    })
    .option('started-at', {
      type: 'string',
      requiresArg: true,
      hidden: true,
      describe: 'Start time to record (ISO 8601), for reproducible output',
    });
}

/** `--no-cache`: parse every log line, neither reading nor writing the parsed-line cache. */
export function withCache<T>(y: Argv<T>) {
  return y.option('cache', {
    type: 'boolean',
    default: true,
    describe:
      'Reuse parsed lines of unchanged logs ($CACHECOST_CACHE_DIR, else $XDG_CACHE_HOME/cachecost or ~/.cache/cachecost); --no-cache parses everything',
  });
}
