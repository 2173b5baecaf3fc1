import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TerminalOptions } from '../../src/format/terminal.js';
import { stripVTControlCharacters } from 'node:util';
import { displayWidth, renderTable, type TableSpec } from '../../src/report/table.js';

describe('renderTable', () => {
  it('right-aligns numeric columns and has no colour codes', () => {
    const text = renderTable({
      columns: [
        { header: 'Name', align: 'left' },
        { header: 'Tokens', align: 'right' },
      ],
      rows: [
        ['a', '1'],
        ['bbbb', '48.1M'],
      ],
      footer: [['Total', '48.1M']],
    });
    expect(text.includes('\u001b[')).toBe(false);
    const lines = text.split('\n');
    expect(lines.find((l) => l.includes(' a '))).toMatch(/│ a\s+│\s+1 │/);
    expect(lines.some((l) => l.includes('Total'))).toBe(true);
  });

  it('refuses a row with the wrong number of cells (a bug, not input)', () => {
    expect(() => renderTable({ columns: [{ header: 'A', align: 'left' }], rows: [['x', 'y']] })).toThrow(
      'table row has 2 cells for 1 columns',
    );
  });

  // Long tables are drawn in parts (cli-table3's layout is quadratic in the cells): joined, the
  // parts must be the one table, byte for byte, whatever the cells and wherever a part ends.
  it('draws a table in parts as one table: any cells, any part length, fitted or not', () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        '',
        '1,234',
        '$0.0155',
        '48.1M',
        '日本語',
        '😀x',
        'a\nbb',
        'e\u0301',
        '\u001b[31mred\u001b[39m',
        'x y z w',
      ),
    );
    const spec = fc.integer({ min: 1, max: 4 }).chain((n) =>
      fc.record({
        columns: fc.array(
          fc.record({
            header: fc.constantFrom('Name', 'Tokens', 'Cost ($)', 'Session id', '名前'),
            align: fc.constantFrom<'left' | 'right'>('left', 'right'),
            secondary: fc.boolean(),
          }),
          { minLength: n, maxLength: n },
        ),
        rows: fc.array(fc.array(cell, { minLength: n, maxLength: n }), { maxLength: 30 }),
        footer: fc.array(fc.array(cell, { minLength: n, maxLength: n }), { maxLength: 2 }),
      }),
    );
    const options = fc.record({
      width: fc.option(fc.integer({ min: 10, max: 120 }), { nil: null }),
      layout: fc.constantFrom<TerminalOptions['layout']>('auto', 'wide', 'compact'),
      color: fc.constant(false),
    });
    fc.assert(
      fc.property(spec, options, fc.integer({ min: 1, max: 7 }), (table: TableSpec, terminal, rowsPerPart) => {
        expect(renderTable(table, terminal, rowsPerPart)).toBe(renderTable(table, terminal, Number.POSITIVE_INFINITY));
      }),
      { numRuns: Number(process.env.TABLE_RUNS ?? 400) },
    );
  });

  // A printable ASCII text is measured by its lines' lengths directly: the same as the general rule.
  it('measures a text as its longest line of code points, escape codes left out', () => {
    const general = (text: string): number =>
      Math.max(
        0,
        ...stripVTControlCharacters(text)
          .split('\n')
          .map((line) => [...line].length),
      );
    const text = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      fc
        .array(fc.constantFrom('ab', ' ', '\n', '\n\n', '~', '日本', '\u001b[31m', 'e\u0301', '\t', '😀'), {
          maxLength: 10,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(displayWidth(value)).toBe(general(value));
      }),
      { numRuns: 2000 },
    );
  });
});
