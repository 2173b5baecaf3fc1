/**
 * CSV rendering with papaparse: a header row, a fixed column order chosen by the caller, and
 * spreadsheet formula injection neutralized (a cell starting with = + - @ tab or CR gets a `'`).
 */
import Papa from 'papaparse';

/** A CSV cell: numbers and booleans are written as is, null as an empty cell. */
export type CsvCell = string | number | bigint | boolean | null;

/** One column: its header and how to read its cell from a row. */
export type CsvColumn<Row> = { readonly header: string; readonly value: (row: Row) => CsvCell };

/**
 * papaparse's own `escapeFormulae: true` pattern is `/^[=+\-@\t\r].*$/`, whose `.*$` does not
 * cross a newline: a multi-line cell such as "=HYPERLINK(…)\nx" would slip through unescaped.
 * Passing the prefix test alone closes that hole. A plain negative number (`-0.0066`, a saving
 * that went the wrong way) is data, not a formula, and stays unescaped so that it reads back as a
 * number.
 */
const FORMULA_PREFIX = /^(?:[=+@\t\r]|-(?!\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$))/;

const ROWS_PER_CHUNK = 5_000;

function unparse(rows: readonly (readonly CsvCell[])[]): string {
  // papaparse's typings want mutable arrays of unknown cells; it only reads them.
  const data = rows.map((row) => row.map((cell) => (typeof cell === 'bigint' ? cell.toString() : cell)));
  return Papa.unparse(data, { escapeFormulae: FORMULA_PREFIX, newline: '\n', header: false });
}

/**
 * Renders rows as CSV chunks (header first, then batches of rows), each ending with a newline;
 * the concatenation is the whole file. Column order is the order of `columns`.
 */
export function* csvChunks<Row>(columns: readonly CsvColumn<Row>[], rows: Iterable<Row>): Generator<string> {
  yield `${unparse([columns.map((column) => column.header)])}\n`;
  let batch: CsvCell[][] = [];
  for (const row of rows) {
    batch.push(columns.map((column) => column.value(row)));
    if (batch.length === ROWS_PER_CHUNK) {
      yield `${unparse(batch)}\n`;
      batch = [];
    }
  }
  if (batch.length > 0) yield `${unparse(batch)}\n`;
}

/** Renders rows as one CSV string (header row + one line per row); for small outputs. */
export function toCsv<Row>(columns: readonly CsvColumn<Row>[], rows: Iterable<Row>): string {
  return [...csvChunks(columns, rows)].join('');
}
