/**
 * The bundle's rewrite of cli-table3's per-cell helpers (`scripts/cli-table3-patch.mjs`) against
 * cli-table3 as published: both are bundled here by esbuild, with and without the plugin, and
 * random tables drawn by each must be the same bytes (or fail with the same error).
 */
import type { Plugin } from 'esbuild';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCjsBundle } from '../support/cjs-bundle.js';

type DrawnTable = { push(...rows: unknown[]): number; toString(): string; readonly messages?: unknown };
type Loaded = {
  readonly Table: (new (options: Record<string, unknown>) => DrawnTable) & { reset(): void };
  readonly strlen: (text: string) => number;
  readonly repeat: (text: unknown, times: unknown) => string;
};
type PatchModule = {
  readonly cliTable3FastPathsPlugin: Plugin;
  readonly patchCliTable3Source: (file: string, source: string) => string;
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PATCH_MODULE = new URL('../../scripts/cli-table3-patch.mjs', import.meta.url).href;

async function patchModule(): Promise<PatchModule> {
  return (await import(PATCH_MODULE)) as PatchModule;
}

/** cli-table3 and its `strlen`, bundled by esbuild with the patch (`patched`) or as published. */
async function loadCliTable3(plugins: Plugin[]): Promise<Loaded> {
  const entry = [
    "const utils = require('cli-table3/src/utils.js');",
    "module.exports = { Table: require('cli-table3'), strlen: utils.strlen, repeat: utils.repeat };",
  ].join('\n');
  return (await runCjsBundle(entry, ROOT, plugins)) as Loaded;
}

/** Pieces of cell text: ASCII, spaces and line breaks, colour codes, wide and combining characters, emoji, controls. */
const PIECE = fc.constantFrom(
  'a',
  'Zq',
  '0',
  '42.5K',
  '$1.25',
  ' ',
  '  ',
  '-',
  '_',
  '.',
  '/',
  '\n',
  '\t',
  '\u0007',
  '\u007f',
  '\u0085',
  '\u001b[31m',
  '\u001b[39m',
  '\u001b[1m',
  '\u001b[22m',
  '漢字',
  'é',
  'e\u0301',
  '…',
  '\u00a0',
  '😀',
  '👍🏽',
  '#',
  '*',
  '1\ufe0f\u20e3',
  '©',
  '\u2028',
);
const TEXT = fc.oneof(
  fc.array(PIECE, { maxLength: 8 }).map((pieces) => pieces.join('')),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
);
/** Every border character's name, under both spellings cli-table3 reads (dashed and camel case). */
const CHAR_NAMES = [
  'top',
  'top-mid',
  'topMid',
  'top-left',
  'topLeft',
  'top-right',
  'topRight',
  'bottom',
  'bottom-mid',
  'bottomMid',
  'bottom-left',
  'bottomLeft',
  'bottom-right',
  'bottomRight',
  'left',
  'left-mid',
  'leftMid',
  'mid',
  'mid-mid',
  'midMid',
  'right',
  'right-mid',
  'rightMid',
  'middle',
] as const;
const CHARS = fc.dictionary(
  fc.constantFrom(...CHAR_NAMES),
  fc.constantFrom('', '-', '=', '║', '+', 'ab', '\u001b[2m|'),
  {
    maxKeys: 10,
  },
);
const STYLE = fc.record(
  {
    compact: fc.boolean(),
    head: fc.constantFrom([], ['red'], ['bold', 'cyan']),
    border: fc.constantFrom([], ['grey']),
    'padding-left': fc.integer({ min: 0, max: 2 }),
    'padding-right': fc.integer({ min: 0, max: 2 }),
    paddingLeft: fc.integer({ min: 0, max: 2 }),
    paddingRight: fc.option(fc.integer({ min: 0, max: 2 })),
  },
  { requiredKeys: [] },
);
/** A cell: its text, or an object with its own options (which `setOption` merges with the table's). */
const CELL = fc.oneof(
  { weight: 4, arbitrary: TEXT },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        content: TEXT,
        chars: CHARS,
        style: STYLE,
        hAlign: fc.constantFrom('left', 'center', 'right'),
        colSpan: fc.integer({ min: 1, max: 2 }),
        rowSpan: fc.integer({ min: 1, max: 3 }),
        truncate: fc.constantFrom('…', '~', ''),
        wordWrap: fc.boolean(),
      },
      { requiredKeys: ['content'] },
    ),
  },
);
const TABLE = fc.integer({ min: 1, max: 5 }).chain((columns) =>
  fc.record(
    {
      head: fc.array(TEXT, { minLength: columns, maxLength: columns }),
      // Short rows too: cli-table3 fills the positions no cell covers (`fillInTable`).
      rows: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: fc.array(CELL, { minLength: columns, maxLength: columns }) },
          { weight: 1, arbitrary: fc.array(CELL, { maxLength: columns }) },
        ),
        { maxLength: 6 },
      ),
      options: fc.record(
        {
          // At least 7: a wrapped cell narrower than its padding and one wide character never ends.
          colWidths: fc.array(fc.option(fc.integer({ min: 7, max: 16 })), { minLength: columns, maxLength: columns }),
          colAligns: fc.array(fc.constantFrom('left', 'center', 'right'), { minLength: columns, maxLength: columns }),
          wordWrap: fc.boolean(),
          wrapOnWordBoundary: fc.boolean(),
          truncate: fc.constantFrom('…', '~', '..'),
          chars: CHARS,
          style: STYLE,
          // Levels 2 and 3 keep the debug message that truncates each cell's text (`Cell.draw`).
          debug: fc.constantFrom(false, true, 1, 2, 3),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['rows', 'options'] },
  ),
);

type RandomTable = typeof TABLE extends fc.Arbitrary<infer T> ? T : never;

/**
 * What drawing a table gives: its text and debug messages, or the error it throws. (cli-table3's
 * debug level stays at the last one a table set; both copies are given the same tables in turn.)
 */
function draw(cliTable3: Loaded, table: RandomTable): string {
  try {
    cliTable3.Table.reset();
    const drawn = new cliTable3.Table(
      structuredClone({ ...table.options, ...(table.head === undefined ? {} : { head: table.head }) }),
    );
    for (const row of structuredClone(table.rows)) drawn.push(row);
    return `text:${drawn.toString()}\nmessages:${JSON.stringify(drawn.messages ?? null)}`;
  } catch (error) {
    return `error:${error instanceof Error ? error.message : String(error)}`;
  }
}

describe('the bundle’s cli-table3 fast paths', () => {
  let published: Loaded;
  let patched: Loaded;
  beforeAll(async () => {
    const { cliTable3FastPathsPlugin } = await patchModule();
    published = await loadCliTable3([]);
    patched = await loadCliTable3([cliTable3FastPathsPlugin]);
  });

  it('draws every table as cli-table3 does', () => {
    fc.assert(
      fc.property(TABLE, (table) => {
        expect(draw(patched, table)).toBe(draw(published, table));
      }),
      { numRuns: 600 },
    );
  });

  it('measures every text as cli-table3 does', () => {
    fc.assert(
      fc.property(TEXT, (text) => {
        expect(patched.strlen(text)).toBe(published.strlen(text));
      }),
      { numRuns: 2000 },
    );
    // Every printable ASCII character and "…" alone and after each other one (emoji sequences start
    // with ASCII digits, # and *).
    const singles = [...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)), '\u2026'];
    for (const first of singles) {
      expect(patched.strlen(first)).toBe(published.strlen(first));
      for (const second of singles) {
        const pair = `${first}${second}\n${first}`;
        expect(patched.strlen(pair)).toBe(published.strlen(pair));
      }
    }
  });

  it('repeats every text as cli-table3 does', () => {
    const outcome = (repeat: Loaded['repeat'], text: unknown, times: unknown): string => {
      try {
        return `text:${repeat(text, times)}`;
      } catch (error) {
        return `error:${error instanceof Error ? error.message : String(error)}`;
      }
    };
    fc.assert(
      fc.property(
        fc.oneof(TEXT, fc.constantFrom(undefined, null, 7)),
        fc.oneof(
          fc.integer({ min: -3, max: 40 }),
          fc.constantFrom(0.5, 2.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '3', null, undefined),
        ),
        (text, times) => {
          expect(outcome(patched.repeat, text, times)).toBe(outcome(published.repeat, text, times));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a cli-table3 source it does not know, and leaves other files alone', async () => {
    const { patchCliTable3Source } = await patchModule();
    expect(() => patchCliTable3Source('src/cell.js', 'function setOption() {}')).toThrow(
      /not the source cliTable3FastPathsPlugin rewrites/,
    );
    expect(patchCliTable3Source('src/table.js', 'anything')).toBe('anything');
  });
});
