// yargs lays out its help text with string-width, three copies of it in the help layout's bundle
// (cliui's and wrap-ansi's 7.2.0, yargs' own 8.3.0). Each builds an `Intl.Segmenter` and
// Unicode-property regular expressions when it is loaded (the process's first Segmenter loads
// ICU's break data, ~23 ms here; 8.3.0's `^\p{RGI_Emoji}$` in `v` mode ~24 ms), then walks every
// string grapheme by grapheme. Printable ASCII (U+0020–U+007E) is one column a character in every
// version: no colour code, no zero-width or combining character, no emoji, no wide character (the
// differential property in test/cli/string-width-lazy.test.ts checks each character and random
// strings against each copy as published).
//
// `lazyStringWidthPlugin` gives each module that imports `string-width` a function that answers a
// string of printable ASCII with its length, and requires the copy that import resolves to (its
// own version) on the first other argument: a help text of printable ASCII never loads one
// (`cachecost --help` ~0.25 → ~0.15 s). A help text with another character is laid out as before,
// only as slowly; the CLI's own texts are printable ASCII (test/cli/app.test.ts).
import { dirname, relative, sep } from 'node:path';

/** The module an import of `string-width` gets: printable ASCII at once, else the copy at `realPath`, loaded on first use. */
export function lazyStringWidthSource(realPath) {
  return [
    'let real;',
    'export default function stringWidth(string, options) {',
    "  if (typeof string === 'string' && /^[\\x20-\\x7e]*$/.test(string)) return string.length;",
    `  real ??= require(${JSON.stringify(realPath)}).default;`,
    '  return real(string, options);',
    '}',
  ].join('\n');
}

/** The esbuild plugin: every `string-width` import resolved as before, then wrapped (`lazyStringWidthSource`). */
export const lazyStringWidthPlugin = {
  name: 'lazy-string-width',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === 'real') return undefined;
      // Where the importer's own copy is (this callback lets its own lookup through).
      const real = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'real',
      });
      if (real.errors.length > 0) return { errors: real.errors };
      // Named in the bundle by its path from the build's directory, as esbuild names the others.
      const from = pluginBuild.initialOptions.absWorkingDir ?? process.cwd();
      const path = relative(from, real.path).split(sep).join('/');
      return { path, namespace: 'lazy-string-width', pluginData: real.path };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents: lazyStringWidthSource(args.pluginData),
      loader: 'js',
      resolveDir: dirname(args.pluginData),
    }));
  },
};
