import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/report/table.js';

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
});
