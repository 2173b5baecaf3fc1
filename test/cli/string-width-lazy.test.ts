/**
 * The help layout's string-width (`scripts/string-width-lazy.mjs`) against string-width as
 * published: each copy yargs' help layout imports (cliui's, wrap-ansi's, yargs' own) is bundled by
 * esbuild as the importer resolves it, with and without the plugin, and both must give the same
 * width for every printable ASCII character, random strings of it, and random strings of anything
 * else (which the plugin's function hands to the copy it loads then). A bundle that measured only
 * printable ASCII never built an `Intl.Segmenter` (the load the plugin saves).
 */
import type { Plugin } from 'esbuild';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCjsBundle } from '../support/cjs-bundle.js';

type StringWidth = (text: unknown, options?: Record<string, unknown>) => number;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLUGIN_MODULE = new URL('../../scripts/string-width-lazy.mjs', import.meta.url).href;
/** The packages whose `string-width` import the help layout bundles (each its own copy). */
const IMPORTERS = ['cliui', 'wrap-ansi', 'yargs'] as const;

/** `string-width` as `importer` resolves it, bundled by esbuild (with `plugins`) into a function of this process. */
async function bundledStringWidth(importer: string, plugins: Plugin[]): Promise<StringWidth> {
  const bundled = (await runCjsBundle(
    "export { default } from 'string-width';",
    `${ROOT}node_modules/${importer}`,
    plugins,
  )) as {
    default?: StringWidth;
  };
  const width = bundled.default;
  if (width === undefined) throw new Error(`no string-width bundled for ${importer}`);
  return width;
}

/** `Intl.Segmenter` counting its constructions while a test runs. */
let segmenters = 0;
const RealSegmenter = Intl.Segmenter;
/** `Intl`, whose `Segmenter` the tests replace (read-only in its type, writable in the engine). */
const intl = Intl as { Segmenter: typeof Intl.Segmenter };
afterEach(() => {
  intl.Segmenter = RealSegmenter;
});
function countSegmenters(): void {
  segmenters = 0;
  intl.Segmenter = class extends RealSegmenter {
    constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
      super(...args);
      segmenters += 1;
    }
  };
}

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
const printableAscii = fc.string({ unit: fc.constantFrom(...PRINTABLE), maxLength: 80 });
/** Anything a help text could hold: controls, colour codes, Latin-1, wide and combining characters, emoji, lone surrogates. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...PRINTABLE),
    fc.constantFrom('\t', '\n', '\r', '\u001b[31m', '\u001b[0m', '\u009b1m', '\u0000', '\u007f'),
    fc.constantFrom('é', '§', '…', '×', '\u00a0', '\u00ad', '\u200b', '\u0301', '\u20e3', '\ufe0f'),
    fc.constantFrom('中', '한', 'ｱ', '👍', '👨‍👩‍👧', '🇫🇷', '#\ufe0f\u20e3', '\ud800', '\udfff'),
    fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  ),
  maxLength: 40,
});
const options = fc.record(
  { ambiguousIsNarrow: fc.boolean(), countAnsiEscapeCodes: fc.boolean() },
  { requiredKeys: [] },
);

describe('string-width in the help layout (scripts/string-width-lazy.mjs)', () => {
  let published = new Map<string, StringWidth>();
  let lazy = new Map<string, StringWidth>();
  let lazyStringWidthPlugin: Plugin;
  beforeAll(async () => {
    ({ lazyStringWidthPlugin } = (await import(PLUGIN_MODULE)) as { lazyStringWidthPlugin: Plugin });
    published = new Map(await Promise.all(IMPORTERS.map(async (i) => [i, await bundledStringWidth(i, [])] as const)));
    lazy = new Map(
      await Promise.all(IMPORTERS.map(async (i) => [i, await bundledStringWidth(i, [lazyStringWidthPlugin])] as const)),
    );
  }, 60_000);

  it.each(IMPORTERS)(
    "%s's copy: printable ASCII is one column a character, without loading string-width",
    async (importer) => {
      const real = published.get(importer);
      if (real === undefined) throw new Error('not bundled');
      // A bundle loaded while Segmenters are counted: the copy builds one when (and only when) it loads.
      countSegmenters();
      const width = await bundledStringWidth(importer, [lazyStringWidthPlugin]);
      for (const character of PRINTABLE) expect(width(character)).toBe(1);
      fc.assert(
        fc.property(printableAscii, options, (text, opts) => {
          expect(width(text, opts)).toBe(text.length);
        }),
      );
      expect(segmenters).toBe(0);
      expect(width('中')).toBe(2);
      expect(segmenters).toBeGreaterThan(0);
      // And as published: the same widths.
      for (const character of PRINTABLE) expect(real(character)).toBe(1);
      fc.assert(
        fc.property(printableAscii, options, (text, opts) => {
          expect(real(text, opts)).toBe(text.length);
        }),
      );
    },
  );

  it.each(IMPORTERS)("%s's copy: any text measures as published", (importer) => {
    const width = lazy.get(importer);
    const real = published.get(importer);
    if (width === undefined || real === undefined) throw new Error('not bundled');
    for (const value of [undefined, null, 42, '']) expect(width(value)).toBe(real(value));
    fc.assert(
      fc.property(anyText, options, (text, opts) => {
        expect(width(text, opts)).toBe(real(text, opts));
      }),
      { numRuns: 500 },
    );
  });
});
