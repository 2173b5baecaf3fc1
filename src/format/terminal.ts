/**
 * How a report is drawn on a terminal, decided once by the CLI (the only place that reads the
 * environment and the TTY) and passed down: the width to fit, the layout, and whether to colour.
 * Colour goes through picocolors, used sparingly: severity, negative savings, unpriced amounts.
 */
import pc from 'picocolors';

/** `auto` drops secondary columns below `COMPACT_BELOW_COLUMNS`; `compact` always; `wide` never and ignores the width. */
export type Layout = 'auto' | 'compact' | 'wide';

/** Below this many columns the `auto` layout is compact (as ccusage does). */
export const COMPACT_BELOW_COLUMNS = 120;

export type TerminalOptions = {
  /** Columns to fit; null = no limit (output to a file or a pipe). */
  readonly width: number | null;
  readonly layout: Layout;
  readonly color: boolean;
};

/** Plain output: no width limit, the full layout, no colour (files, pipes, tests). */
export const PLAIN: TerminalOptions = { width: null, layout: 'auto', color: false };

/** Whether secondary columns are dropped. */
export function isCompact(options: TerminalOptions): boolean {
  if (options.layout === 'wide') return false;
  if (options.layout === 'compact') return true;
  return options.width !== null && options.width < COMPACT_BELOW_COLUMNS;
}

/** The width to fit, null under `--wide`. */
export function fitWidth(options: TerminalOptions): number | null {
  return options.layout === 'wide' ? null : options.width;
}

export type Paint = {
  readonly bad: (text: string) => string;
  readonly warn: (text: string) => string;
  readonly good: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
};

const IDENTITY = (text: string): string => text;

/** Colour functions, or identities when colour is off. */
export function paint(options: Pick<TerminalOptions, 'color'>): Paint {
  if (!options.color) return { bad: IDENTITY, warn: IDENTITY, good: IDENTITY, dim: IDENTITY, bold: IDENTITY };
  const c = pc.createColors(true);
  return { bad: c.red, warn: c.yellow, good: c.green, dim: c.dim, bold: c.bold };
}

/**
 * Whether to colour: `--color`/`--no-color` first, then `NO_COLOR` (any non-empty value turns it
 * off, no-color.org), then `FORCE_COLOR` (anything but `0`/`false` turns it on), then whether
 * stdout is a terminal. `TERM=dumb` is plain.
 */
export function colorWanted(
  flag: boolean | undefined,
  env: Readonly<Record<string, string | undefined>>,
  isTTY: boolean,
): boolean {
  if (flag !== undefined) return flag;
  const noColor = env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return isTTY && env['TERM'] !== 'dumb';
}
