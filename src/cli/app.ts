/**
 * The CLI: yargs parsing, the command registry, and the one place where failures become exit
 * codes and one-line messages (STYLE.md habit 5). `runCli` never exits the process and prints
 * only through the injected `CliIo`, so tests drive it exactly as the binary does.
 */
import yargs, { type Argv } from 'yargs';
import { CachecostError, errorMessage, exitCodeFor } from '../session/errors.js';
import type { CommandContext, GlobalArgs } from './command.js';
import { COMMANDS } from './commands/registry.js';
import type { CliIo } from './io.js';
import { terminalSafe, terminalSafeOutput } from '../format/terminal-safe.js';
import { packageVersion } from './version.js';

/** Exit code for an unexpected exception (a bug): EX_SOFTWARE from sysexits.h. */
export const INTERNAL_ERROR_EXIT = 70;
/** Exit code for a command line that does not parse. */
export const USAGE_EXIT = 1;

const NO_COMMAND = 'no command given';

/** Runs the CLI on `argv` (without node and script) and resolves to the process exit code. */
export async function runCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  // The last guard: whatever a command prints, control characters from logs never drive the terminal.
  const io: CliIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(terminalSafeOutput(text)),
    stderr: (text) => rawIo.stderr(terminalSafeOutput(text)),
  };
  // An object, not a `let`: the handler sets it inside yargs' callback, where TypeScript's flow
  // analysis cannot follow the assignment.
  const pending: { work: Promise<number> | null } = { work: null };
  const ctx: CommandContext = {
    io,
    argv,
    version: packageVersion(),
    settle: (promise) => {
      pending.work = promise;
    },
  };
  let parser: Argv<GlobalArgs> = yargs([...argv])
    .scriptName('cachecost')
    .usage(
      "$0 <command> [options]\n\nReplay coding-agent sessions through FreeCode's compaction engine and price every request by prompt-cache class.",
    )
    .option('verbose', {
      type: 'boolean',
      default: false,
      global: true,
      describe: 'List every ingest issue on stderr; show stacks of internal errors',
    })
    .option('strict', {
      type: 'boolean',
      default: false,
      global: true,
      describe: 'Treat any ingest issue as fatal (exit 2)',
    })
    .option('color', {
      type: 'boolean',
      global: true,
      describe: 'Colour the tables (--no-color: never) [on a terminal, unless NO_COLOR is set]',
    })
    .option('compact', {
      type: 'boolean',
      global: true,
      describe: 'Compact tables: leave secondary columns out [below 120 columns]',
    })
    .option('wide', { type: 'boolean', global: true, describe: 'Every column, whatever the terminal width' })
    .conflicts('compact', 'wide')
    .strict()
    .demandCommand(1, NO_COMMAND)
    .version(packageVersion())
    .help()
    .alias('h', 'help')
    .wrap(100)
    .exitProcess(false);
  for (const command of COMMANDS) parser = command.register(parser, ctx);
  skipHelpCache(parser);

  const parsed = await new Promise<{ readonly error: Error | null; readonly output: string }>((resolve) => {
    // With a callback yargs prints nothing and never exits: help, version and errors come back here.
    void parser.parse([...argv], {}, (error, _args, output) => resolve({ error: error ?? null, output }));
  });
  if (parsed.error !== null) {
    if (parsed.error.message === NO_COMMAND) {
      io.stderr(`${parsed.output}\n`);
    } else {
      // yargs spreads some messages over lines ("Invalid values:\n  Argument: …"): one line here.
      io.stderr(`cachecost: ${terminalSafe(parsed.error.message.replace(/\s*\n\s*/g, ' '))} (see cachecost --help)\n`);
    }
    return USAGE_EXIT;
  }
  if (pending.work === null) {
    if (parsed.output !== '') io.stdout(`${parsed.output}\n`);
    return 0;
  }
  try {
    return await pending.work;
  } catch (error) {
    if (error instanceof CachecostError) {
      io.stderr(`cachecost: ${terminalSafe(error.message)}\n`);
      return exitCodeFor(error.code);
    }
    const message = errorMessage(error);
    io.stderr(`cachecost: internal error: ${terminalSafe(message)}\n`);
    if (argv.includes('--verbose') && error instanceof Error && error.stack !== undefined)
      io.stderr(`${error.stack}\n`);
    return INTERNAL_ERROR_EXIT;
  }
}

/**
 * yargs renders a command's whole help text each time the command runs, to have it ready should
 * the handler fail (`cacheHelpMessage`): 0.1–0.15 s of wrapping and string widths on every run.
 * Our handlers never let yargs print a failure (they settle into `runCli`'s own error handling),
 * so the text is never used: the cache is skipped. `--help` renders it as before. If a yargs
 * version lacks this internal, nothing changes.
 */
function skipHelpCache(parser: Argv<GlobalArgs>): void {
  type Internals = { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } };
  const usage = (parser as unknown as Internals).getInternalMethods?.().getUsageInstance?.();
  if (usage !== undefined && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}
