/**
 * The terminal options of a command's output (width, layout, colour), read here, in the CLI, from
 * the flags, the environment and stdout, and passed down to the renderers as a plain value.
 */
import { colorWanted, type TerminalOptions } from '../format/terminal.js';
import type { CliIo } from './io.js';

/** The display flags every command accepts (declared once in `app.ts`). */
export type DisplayArgs = {
  readonly color?: boolean | undefined;
  readonly compact?: boolean | undefined;
  readonly wide?: boolean | undefined;
};

function columnsFromEnv(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return null;
  const value = Number(raw);
  return value > 0 ? value : null;
}

/**
 * The width is stdout's columns on a terminal, else `$COLUMNS` when set, else none (a pipe or a
 * file gets whole tables).
 */
export function terminalOptions(args: DisplayArgs, io: CliIo): TerminalOptions {
  const width =
    io.stdoutIsTTY === true && io.stdoutColumns !== undefined && io.stdoutColumns > 0
      ? io.stdoutColumns
      : columnsFromEnv(io.env['COLUMNS']);
  return {
    width,
    layout: args.wide === true ? 'wide' : args.compact === true ? 'compact' : 'auto',
    color: colorWanted(args.color, io.env, io.stdoutIsTTY === true),
  };
}
