// Two of cli-table3 0.6.5's per-cell helpers, rewritten in the bundle to give the same answers
// faster (`cliTable3FastPathsPlugin`, used by scripts/bundle-cli.mjs; the differential property in
// test/report/cli-table3-patch.test.ts draws random tables with both and compares every byte).
// cli-table3 calls them for every cell of every table it draws, and a table of sessions has
// thousands of cells (577 rows of 14 columns in `sessions`):
// - `setOption`, which copies each of 18 options into a cell (`mergeTableOptions`): it split and
//   rejoined the option's name into camel case on every call, and `firstDefined` made an array of
//   its arguments and a filtered copy of it to return the first one neither undefined nor null.
//   The camel-case name is now worked out once per name (the same split and join), and the first
//   defined value picked from the four values read as before, in the same order.
// - `strlen`, a cell's width (its widest line): it ran every line through string-width, which
//   strips colour codes and emoji and looks at every code point. A text of printable ASCII and
//   line breaks has neither, and every such character is one column: its width is its longest
//   line's length, counted directly (the shortcut `report/table.ts` already takes for its widths).
//   So is "…" (U+2026), which this CLI puts in every row of a sessions table (shortened ids): one
//   column, no emoji alone or beside ASCII (checked against string-width in the test).
// - `Cell.draw`, which truncated every cell's text to 10 columns for a debug message that the
//   debug level then dropped (cli-table3 keeps it only at level INFO or above, set by the table's
//   `debug` option): the text is truncated only when the message is kept. `debug.keeps(min)`, added
//   to its debug module, tells whether a message of that level is.
// - `colorizeLines`, run on every cell's lines to carry colour codes from line to line: on lines
//   without an escape character it only copied them, through three functions and a regular
//   expression a line. Such lines are copied at once.
// - `mergeTableOptions` set a cell's 15 border characters one `setOption` at a time into an empty
//   object (15 keyed stores under 15 names a cell): they are one object literal, the same keys in the
//   same order, each value picked as `setOption` picks it.
// - `repeat` (borders and padding, several a cell) made an array of `times + 1` holes to join: a
//   string repeated a whole number of times below the array length limit is `String#repeat`'s.
// - `conflictExists` (its layout's check whether a position is covered), asked for every position
//   of the table: it looked for a covering cell in every row above before the position's own row,
//   where a complete row's cell is found, which made drawing quadratic in the rows (hence
//   `report/table.ts` draws 50 rows at a time). It asks the same question of the same cells, the
//   position's row first.
// A cli-table3 whose source is not the one known here fails the build, so that an upgrade is looked
// at again.

/** cli-table3 0.6.5's `firstDefined` and `setOption` (`src/cell.js`), as published. */
const SET_OPTION_0_6_5 = `function firstDefined(...args) {
  return args.filter((v) => v !== undefined && v !== null).shift();
}

// HELPER FUNCTIONS
function setOption(objA, objB, nameB, targetObj) {
  let nameA = nameB.split('-');
  if (nameA.length > 1) {
    nameA[1] = nameA[1].charAt(0).toUpperCase() + nameA[1].substr(1);
    nameA = nameA.join('');
    targetObj[nameA] = firstDefined(objA[nameA], objA[nameB], objB[nameA], objB[nameB]);
  } else {
    targetObj[nameB] = firstDefined(objA[nameB], objB[nameB]);
  }
}
`;

const SET_OPTION_FAST = `function firstDefined(...args) {
  return args.filter((v) => v !== undefined && v !== null).shift();
}

// HELPER FUNCTIONS
// (cachecost's bundle: scripts/cli-table3-patch.mjs) Each option name's camel-case form, worked
// out once, as before: null for a name without a dash.
const camelNames = new Map();
function camelName(nameB) {
  let nameA = camelNames.get(nameB);
  if (nameA === undefined) {
    const parts = nameB.split('-');
    if (parts.length > 1) {
      parts[1] = parts[1].charAt(0).toUpperCase() + parts[1].substr(1);
      nameA = parts.join('');
    } else nameA = null;
    camelNames.set(nameB, nameA);
  }
  return nameA;
}
/** \`firstDefined\` of two or four values, without its arrays. */
function firstDefined4(a, b, c, d) {
  if (a !== undefined && a !== null) return a;
  if (b !== undefined && b !== null) return b;
  if (c !== undefined && c !== null) return c;
  if (d !== undefined && d !== null) return d;
  return undefined;
}
function setOption(objA, objB, nameB, targetObj) {
  const nameA = camelName(nameB);
  if (nameA !== null) {
    targetObj[nameA] = firstDefined4(objA[nameA], objA[nameB], objB[nameA], objB[nameB]);
  } else {
    targetObj[nameB] = firstDefined4(objA[nameB], objB[nameB], undefined, undefined);
  }
}
`;

/** cli-table3 0.6.5's `strlen` (`src/utils.js`), as published. */
const STRLEN_0_6_5 = `function strlen(str) {
  let code = codeRegex();
  let stripped = ('' + str).replace(code, '');
  let split = stripped.split('\\n');
  return split.reduce(function (memo, s) {
    return stringWidth(s) > memo ? stringWidth(s) : memo;
  }, 0);
}
`;

const STRLEN_FAST = `// (cachecost's bundle: scripts/cli-table3-patch.mjs) Printable ASCII, "…" and line breaks: one
// column a character, no colour code, no emoji; the longest line's length is what string-width gives.
const PRINTABLE_ASCII_LINES = /^[\\x20-\\x7e\\n\\u2026]*$/;
function strlen(str) {
  const text = '' + str;
  if (PRINTABLE_ASCII_LINES.test(text)) {
    let widest = 0;
    let from = 0;
    for (;;) {
      const newline = text.indexOf('\\n', from);
      const width = (newline === -1 ? text.length : newline) - from;
      if (width > widest) widest = width;
      if (newline === -1) return widest;
      from = newline + 1;
    }
  }
  let code = codeRegex();
  let stripped = text.replace(code, '');
  let split = stripped.split('\\n');
  return split.reduce(function (memo, s) {
    return stringWidth(s) > memo ? stringWidth(s) : memo;
  }, 0);
}
`;

/** cli-table3 0.6.5's `Cell.draw`: the debug message of a cell's first line. */
const DRAW_DEBUG_0_6_5 = `    let content = utils.truncate(this.content, 10, this.truncate);
    if (!lineNum) {
      info(\`\${this.y}-\${this.x}: \${this.rowSpan - lineNum}x\${this.colSpan} Cell \${content}\`);
    } else {`;

const DRAW_DEBUG_FAST = `    if (!lineNum) {
      // (cachecost's bundle: scripts/cli-table3-patch.mjs) Truncated for the message alone. (\`debug\`
      // here is the module's \`debug.debug\`: the module itself is required.)
      const debugModule = require('./debug');
      if (debugModule.keeps(debugModule.INFO)) {
        let content = utils.truncate(this.content, 10, this.truncate);
        info(\`\${this.y}-\${this.x}: \${this.rowSpan - lineNum}x\${this.colSpan} Cell \${content}\`);
      }
    } else {`;

/** cli-table3 0.6.5's debug module: the last line before its export. */
const DEBUG_MESSAGES_0_6_5 = `debug.debugMessages = () => messages;
`;

const DEBUG_KEEPS = `debug.debugMessages = () => messages;
// (cachecost's bundle: scripts/cli-table3-patch.mjs) Whether a message of level \`min\` is kept.
debug.keeps = (min) => level >= min;
`;

/** cli-table3 0.6.5's `colorizeLines` (`src/utils.js`): its first lines. */
const COLORIZE_0_6_5 = `function colorizeLines(input) {
  let state = {};
  let output = [];
`;

const COLORIZE_FAST = `function colorizeLines(input) {
  // (cachecost's bundle: scripts/cli-table3-patch.mjs) No escape character in any line: no state to
  // carry, and every line is returned as it is.
  let plain = true;
  for (let i = 0; i < input.length && plain; i++) {
    plain = typeof input[i] === 'string' && !input[i].includes('\\u001b');
  }
  if (plain) return input.slice();
  let state = {};
  let output = [];
`;

/** cli-table3 0.6.5's `mergeTableOptions`: the border characters set one by one. */
const MERGE_CHARS_0_6_5 = `    let chars = (this.chars = {});
    CHAR_NAMES.forEach(function (name) {
      setOption(optionsChars, tableChars, name, chars);
    });
`;

const MERGE_CHARS_FAST = `    // (cachecost's bundle: scripts/cli-table3-patch.mjs) One object literal (\`mergedChars\`).
    let chars = (this.chars = mergedChars(optionsChars, tableChars));
`;

/** cli-table3 0.6.5's border character names (\`mergedChars\` spells them out: checked here). */
const CHAR_NAMES_0_6_5 = `let CHAR_NAMES = [
  'top',
  'top-mid',
  'top-left',
  'top-right',
  'bottom',
  'bottom-mid',
  'bottom-left',
  'bottom-right',
  'left',
  'left-mid',
  'mid',
  'mid-mid',
  'right',
  'right-mid',
  'middle',
];
`;

const CHAR_NAMES_AND_MERGED = `${CHAR_NAMES_0_6_5}
// (cachecost's bundle: scripts/cli-table3-patch.mjs) What \`setOption\` gives for each of
// CHAR_NAMES in turn, camel-cased where the name has a dash, as one object literal.
function mergedChars(a, b) {
  return {
    top: firstDefined4(a.top, b.top, undefined, undefined),
    topMid: firstDefined4(a.topMid, a['top-mid'], b.topMid, b['top-mid']),
    topLeft: firstDefined4(a.topLeft, a['top-left'], b.topLeft, b['top-left']),
    topRight: firstDefined4(a.topRight, a['top-right'], b.topRight, b['top-right']),
    bottom: firstDefined4(a.bottom, b.bottom, undefined, undefined),
    bottomMid: firstDefined4(a.bottomMid, a['bottom-mid'], b.bottomMid, b['bottom-mid']),
    bottomLeft: firstDefined4(a.bottomLeft, a['bottom-left'], b.bottomLeft, b['bottom-left']),
    bottomRight: firstDefined4(a.bottomRight, a['bottom-right'], b.bottomRight, b['bottom-right']),
    left: firstDefined4(a.left, b.left, undefined, undefined),
    leftMid: firstDefined4(a.leftMid, a['left-mid'], b.leftMid, b['left-mid']),
    mid: firstDefined4(a.mid, b.mid, undefined, undefined),
    midMid: firstDefined4(a.midMid, a['mid-mid'], b.midMid, b['mid-mid']),
    right: firstDefined4(a.right, b.right, undefined, undefined),
    rightMid: firstDefined4(a.rightMid, a['right-mid'], b.rightMid, b['right-mid']),
    middle: firstDefined4(a.middle, b.middle, undefined, undefined),
  };
}
`;

/** cli-table3 0.6.5's `repeat` (`src/utils.js`). */
const REPEAT_0_6_5 = `function repeat(str, times) {
  return Array(times + 1).join(str);
}
`;

const REPEAT_FAST = `function repeat(str, times) {
  // (cachecost's bundle: scripts/cli-table3-patch.mjs) What the join gives, without the array.
  if (typeof str === 'string' && Number.isInteger(times) && times >= 0 && times < 0xfffffffe) return str.repeat(times);
  return Array(times + 1).join(str);
}
`;

/** cli-table3 0.6.5's `conflictExists` (`src/layout-manager.js`). */
const CONFLICT_0_6_5 = `  function conflictExists(rows, x, y) {
    let i_max = Math.min(rows.length - 1, y);
    let cell = { x: x, y: y };
    for (let i = 0; i <= i_max; i++) {
      let row = rows[i];
      for (let j = 0; j < row.length; j++) {
        if (cellsConflict(cell, row[j])) {
          return true;
        }
      }
    }
    return false;
  }
`;

const CONFLICT_FAST = `  function conflictExists(rows, x, y) {
    let i_max = Math.min(rows.length - 1, y);
    let cell = { x: x, y: y };
    // (cachecost's bundle: scripts/cli-table3-patch.mjs) Row y first, then the rows above: the same
    // cells asked the same question, in another order.
    const own = i_max === y ? rows[y] : undefined;
    if (own !== undefined) {
      for (let j = 0; j < own.length; j++) {
        if (cellsConflict(cell, own[j])) {
          return true;
        }
      }
    }
    const above = own !== undefined ? y - 1 : i_max;
    for (let i = 0; i <= above; i++) {
      let row = rows[i];
      for (let j = 0; j < row.length; j++) {
        if (cellsConflict(cell, row[j])) {
          return true;
        }
      }
    }
    return false;
  }
`;

/** The files rewritten, by their path inside the cli-table3 package, and what is replaced in each. */
const PATCHES = [
  { file: 'src/cell.js', from: SET_OPTION_0_6_5, to: SET_OPTION_FAST },
  { file: 'src/cell.js', from: DRAW_DEBUG_0_6_5, to: DRAW_DEBUG_FAST },
  { file: 'src/cell.js', from: MERGE_CHARS_0_6_5, to: MERGE_CHARS_FAST },
  { file: 'src/cell.js', from: CHAR_NAMES_0_6_5, to: CHAR_NAMES_AND_MERGED },
  { file: 'src/utils.js', from: STRLEN_0_6_5, to: STRLEN_FAST },
  { file: 'src/utils.js', from: COLORIZE_0_6_5, to: COLORIZE_FAST },
  { file: 'src/utils.js', from: REPEAT_0_6_5, to: REPEAT_FAST },
  { file: 'src/layout-manager.js', from: CONFLICT_0_6_5, to: CONFLICT_FAST },
  { file: 'src/debug.js', from: DEBUG_MESSAGES_0_6_5, to: DEBUG_KEEPS },
];

/**
 * `source` (the text of cli-table3's `file`) with its patch applied; `source` itself for a file
 * without one. Throws when the text to replace is not in it exactly once.
 */
export function patchCliTable3Source(file, source) {
  let patched = source;
  for (const patch of PATCHES) {
    if (patch.file !== file) continue;
    const at = patched.indexOf(patch.from);
    if (at === -1 || patched.indexOf(patch.from, at + 1) !== -1)
      throw new Error(
        `cli-table3 ${file}: not the source cliTable3FastPathsPlugin rewrites (scripts/cli-table3-patch.mjs); look at it again`,
      );
    patched = patched.slice(0, at) + patch.to + patched.slice(at + patch.from.length);
  }
  return patched;
}

const PATCHED_FILE = /[\\/]node_modules[\\/]cli-table3[\\/](src[\\/](?:cell|utils|debug|layout-manager)\.js)$/;

/** The esbuild plugin that applies `patchCliTable3Source` to the files it rewrites. */
export const cliTable3FastPathsPlugin = {
  name: 'cli-table3-fast-paths',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PATCHED_FILE }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const file = (PATCHED_FILE.exec(args.path)?.[1] ?? '').replace(/\\/g, '/');
      return { contents: patchCliTable3Source(file, await readFile(args.path, 'utf8')), loader: 'js' };
    });
  },
};
