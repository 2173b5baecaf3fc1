/**
 * Terminal tables with cli-table3, fitted to the terminal: numbers right-aligned, a rule under the
 * header only. Given a width, a table first drops its secondary columns (the compact layout, also
 * chosen below `COMPACT_BELOW_COLUMNS` or by `--compact`), then wraps its text columns at word
 * boundaries until every line fits. Without a width (a pipe, a file, a test) it is drawn whole.
 * Colour, when on, is in the cells already; widths are measured without escape codes.
 */
import { stripVTControlCharacters } from 'node:util';
import Table from 'cli-table3';
import { fitWidth, isCompact, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { terminalSafeOutput } from '../format/terminal-safe.js';
import { wrapWords } from '../format/wrap.js';

export type Align = 'left' | 'right';

/**
 * One column of a terminal table: header text and alignment. A `secondary` column is left out of
 * the compact layout; a left-aligned column may wrap its text to fit, a right-aligned one never does.
 */
export type TableColumn = {
  readonly header: string;
  readonly align: Align;
  readonly secondary?: boolean;
  /** Shown only in the compact layout (a sum standing in for secondary columns). */
  readonly compactOnly?: boolean;
  /** Never wrapped (an id, a date). */
  readonly noWrap?: boolean;
};

/** A table's content: columns, body rows and optional footer rows (totals), all as display strings. */
export type TableSpec = {
  readonly columns: readonly TableColumn[];
  readonly rows: readonly (readonly string[])[];
  readonly footer?: readonly (readonly string[])[];
};

/** Said under a table that left columns out. */
export const COMPACT_NOTE = 'Compact view: some columns are hidden; --wide shows them all.';

/** Narrowest a wrapping column gets, padding included. */
const MIN_WRAP_WIDTH = 10;
/** cli-table3 pads each cell with one space either side. */
const PADDING = 2;

/** Display width of a string: the longest of its lines, escape codes left out. */
export function displayWidth(text: string): number {
  return Math.max(
    0,
    ...stripVTControlCharacters(text)
      .split('\n')
      .map((line) => [...line].length),
  );
}

function longestWord(text: string): number {
  return Math.max(
    0,
    ...stripVTControlCharacters(text)
      .split(/[\s]+/)
      .map((word) => [...word].length),
  );
}

/** The table's line width for given column widths (padding included): the cells plus n + 1 borders. */
function tableWidth(widths: readonly number[]): number {
  return widths.reduce((a, b) => a + b, 0) + widths.length + 1;
}

type Fitted = {
  readonly keep: readonly number[];
  readonly widths: readonly number[] | null;
  readonly dropped: boolean;
};

/** Which columns to keep and how wide each is, for the options' layout and width. */
function fit(spec: TableSpec, rows: readonly (readonly string[])[], options: TerminalOptions): Fitted {
  const all = spec.columns.map((_, i) => i);
  const natural = (i: number) =>
    Math.max(displayWidth(spec.columns[i]?.header ?? ''), ...rows.map((row) => displayWidth(row[i] ?? ''))) + PADDING;
  const width = fitWidth(options);
  const compact = all.filter((i) => spec.columns[i]?.secondary !== true);
  const full = all.filter((i) => spec.columns[i]?.compactOnly !== true);
  let keep = isCompact(options) ? compact : full;
  const dropped = () => keep.length < all.length && keep !== full;
  if (width === null) return { keep, widths: null, dropped: dropped() };
  if (tableWidth(keep.map(natural)) > width && options.layout !== 'wide') keep = compact;
  const widths = keep.map(natural);
  if (tableWidth(widths) <= width) return { keep, widths: null, dropped: dropped() };
  // Narrowest each column can be: a wrapping column down to MIN_WRAP_WIDTH (or its longest word
  // when shorter), a number column its longest cell, a header wraps at its spaces.
  const floor = keep.map((i) => {
    const column = spec.columns[i];
    const headerWord = longestWord(column?.header ?? '') + PADDING;
    if (column?.noWrap === true) return natural(i);
    if (column?.align === 'left') return Math.min(natural(i), Math.max(MIN_WRAP_WIDTH, headerWord));
    return Math.max(headerWord, ...rows.map((row) => displayWidth(row[i] ?? '') + PADDING));
  });
  const shrunk = [...widths];
  // Take one column at a time from the widest column that can still give (text first, then headers).
  while (tableWidth(shrunk) > width) {
    let widest = -1;
    for (let k = 0; k < shrunk.length; k += 1) {
      if ((shrunk[k] ?? 0) > (floor[k] ?? 0) && (widest === -1 || (shrunk[k] ?? 0) > (shrunk[widest] ?? 0))) widest = k;
    }
    if (widest === -1) break;
    shrunk[widest] = (shrunk[widest] ?? 0) - 1;
  }
  return { keep, widths: shrunk, dropped: dropped() };
}

/**
 * Renders a table to a string (no trailing newline); every row must have one cell per column.
 * With `options`, the table fits `options.width` when its columns can (see the module comment) and
 * a line under it says when columns were left out.
 */
export function renderTable(spec: TableSpec, options: TerminalOptions = PLAIN): string {
  // Cells quote logs (model names, ids, paths): no control character reaches the terminal. Renderers
  // may put their own line breaks and colour (SGR) in a cell; every other control is escaped.
  const rows = [...spec.rows, ...(spec.footer ?? [])].map((row) => row.map(terminalSafeOutput));
  for (const row of rows) {
    if (row.length !== spec.columns.length) {
      throw new Error(`table row has ${row.length} cells for ${spec.columns.length} columns`);
    }
  }
  const { keep, widths, dropped } = fit(spec, rows, options);
  const pick = <T>(cells: readonly T[]): T[] => keep.map((i) => cells[i] as T);
  const columns = pick(spec.columns);
  // Cells are wrapped here (at spaces, then after - / _ .), not by cli-table3, which cuts long words.
  const wrap = (cells: readonly string[]): string[] =>
    widths === null
      ? [...cells]
      : cells.map((cell, k) => {
          const room = (widths[k] ?? 0) - PADDING;
          return displayWidth(cell) <= room
            ? cell
            : cell
                .split('\n')
                .flatMap((line) => wrapWords(stripVTControlCharacters(line), room))
                .join('\n');
        });
  const table = new Table({
    head: wrap(columns.map((column) => column.header)),
    colAligns: columns.map((column) => column.align),
    ...(widths === null ? {} : { colWidths: [...widths] }),
    // Compact: a rule under the header only, so a list of sessions stays one line per session.
    style: { head: [], border: [], compact: true },
  });
  for (const row of rows) table.push(wrap(pick(row)));
  const text = table.toString();
  return dropped ? `${text}\n${COMPACT_NOTE}` : text;
}
