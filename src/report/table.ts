/**
 * Terminal tables with cli-table3: plain ASCII-safe box drawing, no colours (output is the same
 * bytes on every terminal, so snapshots and pipes stay stable), numbers right-aligned.
 */
import Table from 'cli-table3';
import { terminalSafe } from '../format/terminal-safe.js';

export type Align = 'left' | 'right';

/** One column of a terminal table: header text and alignment. */
export type TableColumn = { readonly header: string; readonly align: Align };

/** A table's content: columns, body rows and optional footer rows (totals), all as display strings. */
export type TableSpec = {
  readonly columns: readonly TableColumn[];
  readonly rows: readonly (readonly string[])[];
  readonly footer?: readonly (readonly string[])[];
};

/** Renders a table to a string (no trailing newline); every row must have one cell per column. */
export function renderTable(spec: TableSpec): string {
  const table = new Table({
    head: spec.columns.map((column) => column.header),
    colAligns: spec.columns.map((column) => column.align),
    // Compact: a rule under the header only, so a list of sessions stays one line per session.
    style: { head: [], border: [], compact: true },
  });
  for (const row of [...spec.rows, ...(spec.footer ?? [])]) {
    if (row.length !== spec.columns.length) {
      throw new Error(`table row has ${row.length} cells for ${spec.columns.length} columns`);
    }
    // Cells quote logs (model names, ids, paths): no control character reaches the terminal.
    table.push(row.map(terminalSafe));
  }
  return table.toString();
}
