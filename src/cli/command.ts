/**
 * The shape every CLI command has, so that adding one is a file in `commands/` plus one line in
 * `commands/registry.ts`. A command registers itself on the yargs parser; its handler hands the
 * work to `settle` as a promise of an exit code, and `app.ts` owns every error → exit code mapping.
 */
import type { Argv } from 'yargs';
import type { CliIo } from './io.js';

/** Options every command accepts (declared once in `app.ts`). */
export type GlobalArgs = {
  readonly verbose: boolean;
  readonly strict: boolean;
  /** `--color` / `--no-color`; unset = decide from NO_COLOR, FORCE_COLOR and the terminal. */
  readonly color?: boolean | undefined;
  readonly compact?: boolean | undefined;
  readonly wide?: boolean | undefined;
};

export type CommandContext = {
  readonly io: CliIo;
  /** The command line as given (without node and script), for provenance. */
  readonly argv: readonly string[];
  /** cachecost's version (package.json). */
  readonly version: string;
  /** Called by a command's yargs handler with the work to do; the promise resolves to the exit code. */
  readonly settle: (work: Promise<number>) => void;
};

export type CliCommand = {
  readonly name: string;
  readonly register: (parser: Argv<GlobalArgs>, ctx: CommandContext) => Argv<GlobalArgs>;
};
