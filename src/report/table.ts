/**
 * Terminal tables with cli-table3, fitted to the terminal: numbers right-aligned, a rule under the
 * header only. Given a width, a table first drops its secondary columns (the compact layout, also
 * chosen below `COMPACT_BELOW_COLUMNS` or by `--compact`), then wraps its text columns at word
 * boundaries until every line fits. Without a width (a pipe, a file, a test) it is drawn whole.
 * Colour, when on, is in the cells already; widths are measured without escape codes.
 */
import { stripVTControlCharacters } from 'node:util';
import Table from 'cli-table3';
import tableUtils from 'cli-table3/src/utils.js';
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

/**
 * Body rows drawn by one cli-table3 table. cli-table3 lays a table out in time quadratic in its
 * cells (each cell is checked against every cell of the rows before it for spans: 4,000 rows of 11
 * columns took 6.2 s, 500 rows 0.38 s), so a longer table is drawn in parts of this many rows with
 * the same column widths, and the parts' lines are joined: the same text as one table (a property
 * draws both), in time linear in the rows. (The CLI's bundle also rewrites that check to look in
 * a cell's own row first, `scripts/cli-table3-patch.mjs`; the library and the tests use cli-table3
 * as published.)
 */
const ROWS_PER_PART = 50;

/** Narrowest a wrapping column gets, padding included. */
const MIN_WRAP_WIDTH = 10;
/** cli-table3 pads each cell with one space either side. */
const PADDING = 2;

/** Printable ASCII and line breaks: one column a character, no escape code. */
const PRINTABLE_ASCII = /^[\x20-\x7e\n]*$/;

/** The length of the longest line of `text` (of `PRINTABLE_ASCII`: its width). */
function longestLine(text: string): number {
  let widest = 0;
  let from = 0;
  for (;;) {
    const newline = text.indexOf('\n', from);
    const width = (newline === -1 ? text.length : newline) - from;
    if (width > widest) widest = width;
    if (newline === -1) return widest;
    from = newline + 1;
  }
}

/** Display width of a string: the longest of its lines, escape codes left out. */
export function displayWidth(text: string): number {
  // Most cells are printable ASCII: their lines' lengths, without stripping, splitting or spreading.
  if (PRINTABLE_ASCII.test(text)) return longestLine(text);
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
export function renderTable(
  spec: TableSpec,
  options: TerminalOptions = PLAIN,
  /** For tests: rows per cli-table3 table (`ROWS_PER_PART`). */
  rowsPerPart = ROWS_PER_PART,
): string {
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
  const head = wrap(columns.map((column) => column.header));
  const body = rows.map((row) => wrap(pick(row)));
  const text = drawTable(
    head,
    body,
    columns.map((column) => column.align),
    widths,
    rowsPerPart,
  );
  return dropped ? `${text}\n${COMPACT_NOTE}` : text;
}

/**
 * The cli-table3 table of `head` and `body`: one table up to `rowsPerPart` rows, else parts of
 * that many rows drawn with the widths the whole table would have (`ROWS_PER_PART`). A part
 * without a header is its rows between a top and a bottom border, which the join leaves out:
 * cli-table3 draws a row's lines from its own cells, the column widths and whether a cell is in
 * the first column, never from other rows.
 */
function drawTable(
  head: readonly string[],
  body: readonly (readonly string[])[],
  colAligns: readonly Align[],
  widths: readonly number[] | null,
  rowsPerPart: number,
): string {
  const colWidths = body.length > rowsPerPart ? (widths ?? naturalWidths(head, body)) : widths;
  const draw = (withHead: boolean, rows: readonly (readonly string[])[]): string => {
    const table = new Table({
      head: withHead ? [...head] : [],
      colAligns: [...colAligns],
      ...(colWidths === null ? {} : { colWidths: [...colWidths] }),
      // Compact: a rule under the header only, so a list of sessions stays one line per session.
      style: { head: [], border: [], compact: true },
    });
    for (const row of rows) table.push([...row]);
    return table.toString();
  };
  // No column left (all secondary, compact): cli-table3 draws no line at all.
  if (colWidths === null || body.length <= rowsPerPart || colAligns.length === 0) return draw(true, body);
  const first = draw(true, body.slice(0, rowsPerPart));
  const parts = [first.slice(0, first.lastIndexOf('\n'))];
  for (let start = rowsPerPart; start < body.length; start += rowsPerPart) {
    const part = draw(false, body.slice(start, start + rowsPerPart));
    const last = start + rowsPerPart >= body.length;
    parts.push(part.slice(part.indexOf('\n') + 1, last ? part.length : part.lastIndexOf('\n')));
  }
  return parts.join('\n');
}

/**
 * The widths cli-table3 gives the columns of a table without `colWidths`: each column's widest
 * cell (its `strlen`: the widest line, colour codes left out, East Asian wide characters counted
 * twice) plus the padding, at least 1. Null when this cli-table3 does not have `strlen` where it is
 * expected (the table is then drawn whole).
 */
function naturalWidths(head: readonly string[], body: readonly (readonly string[])[]): number[] | null {
  const strlen = tableStrlen();
  if (strlen === null) return null;
  // Printable ASCII (and line breaks) is one column a character: no call into string-width.
  const width = (text: string): number => (PRINTABLE_ASCII.test(text) ? longestLine(text) : strlen(text));
  const widths = head.map((cell) => Math.max(width(cell) + PADDING, 1));
  for (const row of body) {
    for (let i = 0; i < row.length; i += 1) {
      const cellWidth = width(row[i] ?? '') + PADDING;
      if (cellWidth > (widths[i] ?? 1)) widths[i] = cellWidth;
    }
  }
  return widths;
}

/** cli-table3's own width of a cell's text (`src/utils.js`), or null when it is not there. */
function tableStrlen(): ((text: string) => number) | null {
  const strlen = tableUtils.strlen;
  return typeof strlen === 'function' ? (strlen as (text: string) => number) : null;
}
