/**
 * A byte-level JSON scanner for JSONL lines: it checks that `bytes[start, end)` is a JSON text that
 * `JSON.parse` accepts (on the line's UTF-8 decoding), and returns that text with chosen values
 * replaced by `null` ("elided"), so that `JSON.parse` and the decoder run only on the small part of
 * the line a reader needs. A Claude Code transcript is mostly tool output kept twice (the
 * tool_result's content and `toolUseResult`): checking its bytes costs a fraction of decoding and
 * parsing them.
 *
 * Why the bytes can be checked without decoding them: every byte of JSON's structure, of its
 * escapes and of its numbers and literals is ASCII, and a UTF-8 decoder never makes an ASCII byte
 * part of another character (an invalid sequence becomes U+FFFD and the ASCII byte after it is
 * read as itself). Bytes ≥ 0x80 can only stand inside strings, where any character is allowed, so
 * validity is decided by the ASCII bytes alone. Cuts are made at value boundaries (between ASCII
 * bytes), so the elided text decodes to the original decoding minus the elided values.
 *
 * What `JSON.parse` accepts (ECMA-404 / ECMA-262 JSON.parse): whitespace is space, tab, LF, CR
 * only; numbers are `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`; a string holds no
 * character below U+0020 and its escapes are `\" \\ \/ \b \f \n \r \t \uXXXX` (any four hex
 * digits, lone surrogates included); literals are `true`, `false`, `null`; nothing but whitespace
 * may follow the value. Duplicate keys are legal (the last one wins): elision is by key path and
 * keeps every occurrence of a key, so `JSON.parse` of the elided text picks the same one.
 *
 * Nesting is bounded by `maxDepth` (the scan is iterative; deeper input is `too-deep`, which the
 * caller reads the slow way, so the depth rule of `json-text.ts` keeps deciding the outcome).
 */

/**
 * Which values to elide: by object key (`true` = elide its value, an `Elision` = the rules inside
 * it) and inside every array item (`items`). Keys are always kept (only their values become `null`).
 */
export type Elision = {
  readonly keys?: Readonly<Record<string, Elision | true>>;
  readonly items?: Elision;
};

/** An `Elision` prepared for matching key bytes. */
export type CompiledElision = {
  readonly keyBytes: readonly Buffer[];
  readonly keyNames: readonly string[];
  /** Per key: the elision inside its value, or null to elide the value itself. */
  readonly children: readonly (CompiledElision | null)[];
  readonly items: CompiledElision | null;
};

export type ScanOutcome =
  { readonly kind: 'json'; readonly text: string } | { readonly kind: 'invalid' } | { readonly kind: 'too-deep' };

const INVALID: ScanOutcome = { kind: 'invalid' };
const TOO_DEEP: ScanOutcome = { kind: 'too-deep' };

/** What an elided value becomes. */
export const ELIDED = null;
const PLACEHOLDER = Buffer.from('null');

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Bytes allowed after a backslash (besides `u`). */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

export function compileElision(spec: Elision): CompiledElision {
  const keyNames = Object.keys(spec.keys ?? {});
  for (const name of keyNames) {
    // Keys are matched on their bytes; a non-ASCII name would need its UTF-8 decoding rules here.
    if (!/^[\x20-\x7e]*$/.test(name) || name.includes('"') || name.includes('\\'))
      throw new Error(`elision key must be plain ASCII: ${JSON.stringify(name)}`);
  }
  return {
    keyBytes: keyNames.map((name) => Buffer.from(name, 'latin1')),
    keyNames,
    children: keyNames.map((name) => {
      const child = spec.keys?.[name];
      return child === true || child === undefined ? null : compileElision(child);
    }),
    items: spec.items === undefined ? null : compileElision(spec.items),
  };
}

/**
 * The reference semantics of an elision, on a parsed value: a copy of `value` with the elided
 * values replaced by `ELIDED`. `scanJson` returns text whose `JSON.parse` equals this applied to
 * the `JSON.parse` of the whole text.
 */
export function elideParsed(value: unknown, spec: Elision | undefined): unknown {
  if (spec === undefined || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value))
    return spec.items === undefined ? value : value.map((item) => elideParsed(item, spec.items));
  if (spec.keys === undefined) return value;
  const keys = spec.keys;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const rule = Object.hasOwn(keys, key) ? keys[key] : undefined;
    const next = rule === undefined ? child : rule === true ? ELIDED : elideParsed(child, rule);
    // defineProperty: a key named "__proto__" is an own property in JSON.parse's result too.
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** 32-bit view of the buffer being scanned (4 bytes tested per step inside strings). */
let wordsOwner: ArrayBufferLike | null = null;
let words: Int32Array = new Int32Array(0);

function wordsOf(bytes: Buffer): Int32Array {
  if (bytes.buffer !== wordsOwner) {
    wordsOwner = bytes.buffer;
    words = new Int32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
  }
  return words;
}

/** Set by `stringEnd`: whether the string just scanned had a backslash (its bytes are not its text). */
let sawEscape = false;

/**
 * Index just after the closing quote of the string whose content starts at `i`, or -1 when the
 * string is invalid (a control character, a bad escape) or not closed before `end`. Runs of
 * ordinary bytes are crossed four at a time: a word holds a quote, a backslash or a byte below
 * 0x20 exactly when one of the three SWAR tests below sets a high bit (a borrow can only flag a
 * byte above a byte that really matches, so "any" is exact).
 */
function stringEnd(bytes: Buffer, i: number, end: number, view: Int32Array): number {
  const base = bytes.byteOffset;
  sawEscape = false;
  for (;;) {
    // Bytes until a word boundary, one by one.
    while (i < end && ((base + i) & 3) !== 0) {
      const c = bytes[i] as number;
      if (c === QUOTE || c === BACKSLASH || c < SPACE) break;
      i += 1;
    }
    if (i < end && ((base + i) & 3) === 0) {
      let k = (base + i) >>> 2;
      const last = (base + end) >>> 2;
      while (k < last) {
        const w = view[k] as number;
        const q = w ^ 0x22222222;
        const s = w ^ 0x5c5c5c5c;
        if ((((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s)) & 0x80808080) break;
        k += 1;
      }
      i = k * 4 - base;
      while (i < end) {
        const c = bytes[i] as number;
        if (c === QUOTE || c === BACKSLASH || c < SPACE) break;
        i += 1;
      }
    }
    if (i >= end) return -1;
    const c = bytes[i] as number;
    if (c === QUOTE) return i + 1;
    if (c < SPACE) return -1;
    // A backslash: one of the simple escapes, or \u and four hex digits.
    sawEscape = true;
    if (i + 1 >= end) return -1;
    const next = bytes[i + 1] as number;
    if (next === 0x75) {
      if (
        i + 5 >= end ||
        HEX[bytes[i + 2] as number] === 0 ||
        HEX[bytes[i + 3] as number] === 0 ||
        HEX[bytes[i + 4] as number] === 0 ||
        HEX[bytes[i + 5] as number] === 0
      )
        return -1;
      i += 6;
    } else if (SIMPLE_ESCAPE[next] === 1) i += 2;
    else return -1;
  }
}

/**
 * `stringEnd` without checking the string's characters: the closing quote is the first quote
 * preceded by an even run of backslashes (true of every valid string). Control characters and
 * escapes are not looked at (one native search per quote instead of a look at every byte).
 */
function looseStringEnd(bytes: Buffer, i: number, end: number): number {
  for (;;) {
    const quote = bytes.indexOf(QUOTE, i);
    if (quote === -1 || quote >= end) return -1;
    let k = quote - 1;
    while (k >= i && bytes[k] === BACKSLASH) k -= 1;
    if (((quote - 1 - k) & 1) === 0) return quote + 1;
    i = quote + 1;
  }
}

function digitsEnd(bytes: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i] as number;
    if (c < ZERO || c > NINE) break;
    i += 1;
  }
  return i;
}

/** Index after the number starting at `i`, or -1 when it is not a JSON number. */
function numberEnd(bytes: Buffer, i: number, end: number): number {
  if (bytes[i] === MINUS) i += 1;
  if (i >= end) return -1;
  const first = bytes[i] as number;
  if (first === ZERO) i += 1;
  else if (first > ZERO && first <= NINE) i = digitsEnd(bytes, i + 1, end);
  else return -1;
  if (i < end && bytes[i] === DOT) {
    const from = i + 1;
    i = digitsEnd(bytes, from, end);
    if (i === from) return -1;
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    i += 1;
    if (i < end && (bytes[i] === PLUS || bytes[i] === MINUS)) i += 1;
    const from = i;
    i = digitsEnd(bytes, from, end);
    if (i === from) return -1;
  }
  return i;
}

function literalEnd(bytes: Buffer, i: number, end: number, literal: Buffer): number {
  const stop = i + literal.length;
  if (stop > end) return -1;
  for (let k = 1; k < literal.length; k += 1) if (bytes[i + k] !== literal[k]) return -1;
  return stop;
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

function whitespaceEnd(bytes: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i] as number;
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) break;
    i += 1;
  }
  return i;
}

/** `childOf`'s answer for a key whose escapes are not valid JSON. */
const BAD_KEY = 'bad key';

/** The elision for the value of key `bytes[from, to)` (a string's content) under `spec`; undefined: none applies. */
function childOf(
  spec: CompiledElision,
  bytes: Buffer,
  from: number,
  to: number,
  escaped: boolean,
): CompiledElision | null | undefined | typeof BAD_KEY {
  const names = spec.keyBytes;
  if (escaped) {
    // Rare: the key's text differs from its bytes; decode it (unchecked strings may not decode).
    let key: unknown;
    try {
      key = JSON.parse(bytes.toString('utf8', from - 1, to + 1));
    } catch {
      return BAD_KEY;
    }
    const at = spec.keyNames.indexOf(key as string);
    return at === -1 ? undefined : spec.children[at];
  }
  const length = to - from;
  for (let n = 0; n < names.length; n += 1) {
    const name = names[n] as Buffer;
    if (name.length !== length) continue;
    let k = 0;
    while (k < length && bytes[from + k] === name[k]) k += 1;
    if (k === length) return spec.children[n];
  }
  return undefined;
}

/**
 * Per depth: the container's opening byte and the elision its values fall under (an object's own,
 * an array's `items`: found once when the array opens, not at each comma, so that the comma's path
 * reads no property a first long line may not have taken yet, which cost a deoptimization of
 * `scan` in every cold run).
 */
let kinds = new Uint8Array(64);
const specs: (CompiledElision | null)[] = [];
/** Cut ranges of the current scan, as [from, to) pairs. */
let cuts: number[] = [];
let scratch = Buffer.allocUnsafeSlow(1 << 16);

/** How much of the bytes a scan checks. */
export type ScanCheck =
  /** Everything `JSON.parse` checks. */
  | 'all'
  /**
   * Everything but the characters inside strings (control characters, escape sequences): the
   * structure, numbers, literals and depth are checked, and a string ends at the first quote not
   * escaped by a backslash. On text `JSON.parse` accepts, the outcome is the same as with `all`;
   * the strings that are kept are still checked by the `JSON.parse` of the elided text.
   */
  | 'structure';

/**
 * Checks `bytes[start, end)` and returns its text with the values `elision` names replaced by
 * `null`: `json` (the text to `JSON.parse`), `invalid` (`JSON.parse` of the decoded bytes throws),
 * or `too-deep` (arrays/objects nest more than `maxDepth` levels, the root being level 1; the
 * bytes were not all checked). With `check: 'structure'`, `invalid` only for what that checks.
 */
export function scanJson(
  bytes: Buffer,
  start: number,
  end: number,
  elision: CompiledElision | null,
  maxDepth: number,
  check: ScanCheck = 'all',
): ScanOutcome {
  const status = scan(bytes, start, end, elision, maxDepth, check === 'all');
  if (status === OK) return { kind: 'json', text: assemble(bytes, start, end) };
  return status === DEEP ? TOO_DEEP : INVALID;
}

/** Whether `bytes[start, end)` is a JSON text `JSON.parse` accepts, nesting at most `maxDepth` levels (no text is built). */
export function isJson(bytes: Buffer, start: number, end: number, maxDepth: number): boolean {
  return scan(bytes, start, end, null, maxDepth, true) === OK;
}

const OK = 0;
const BAD = 1;
const DEEP = 2;

function scan(
  bytes: Buffer,
  start: number,
  end: number,
  elision: CompiledElision | null,
  maxDepth: number,
  strict: boolean,
): number {
  if (kinds.length < maxDepth) kinds = new Uint8Array(maxDepth);
  const view = wordsOf(bytes);
  cuts.length = 0;
  let depth = 0;
  let spec = elision;
  /** While eliding: the depth at which the elided value ends, and where it started. */
  let cutDepth = -1;
  let cutFrom = 0;
  let i = start;
  value: for (;;) {
    i = whitespaceEnd(bytes, i, end);
    if (i >= end) return BAD;
    let c = bytes[i] as number;
    if (c === LBRACE || c === LBRACKET) {
      if (depth >= maxDepth) return DEEP;
      kinds[depth] = c;
      if (c === LBRACKET) spec = spec === null ? null : spec.items;
      specs[depth] = spec;
      depth += 1;
      i = whitespaceEnd(bytes, i + 1, end);
      if (i >= end) return BAD;
      if (bytes[i] === (c === LBRACE ? RBRACE : RBRACKET)) {
        i += 1;
        depth -= 1;
      } else if (c === LBRACKET) {
        continue value;
      } else {
        const at = keyValue(bytes, i, end, view, spec, strict);
        if (at < 0) return BAD;
        i = at;
        spec = keySpec;
        if (keyElided && cutDepth === -1) {
          cutDepth = depth;
          cutFrom = whitespaceEnd(bytes, i, end);
        }
        continue value;
      }
    } else if (c === QUOTE) {
      i = strict ? stringEnd(bytes, i + 1, end, view) : looseStringEnd(bytes, i + 1, end);
      if (i < 0) return BAD;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      i = literalEnd(bytes, i, end, c === 0x74 ? TRUE : c === 0x66 ? FALSE : NULL);
      if (i < 0) return BAD;
    } else {
      i = numberEnd(bytes, i, end);
      if (i < 0) return BAD;
    }
    // A value ended at `i`: close containers and move to the next item or key.
    for (;;) {
      if (depth === cutDepth) {
        cuts.push(cutFrom, i);
        cutDepth = -1;
      }
      if (depth === 0) {
        return whitespaceEnd(bytes, i, end) === end ? OK : BAD;
      }
      i = whitespaceEnd(bytes, i, end);
      if (i >= end) return BAD;
      c = bytes[i] as number;
      const kind = kinds[depth - 1] as number;
      if (c === COMMA) {
        i = whitespaceEnd(bytes, i + 1, end);
        const container = specs[depth - 1] ?? null;
        if (kind === LBRACKET) {
          spec = container;
          continue value;
        }
        const at = keyValue(bytes, i, end, view, container, strict);
        if (at < 0) return BAD;
        i = at;
        spec = keySpec;
        if (keyElided && cutDepth === -1) {
          cutDepth = depth;
          cutFrom = whitespaceEnd(bytes, i, end);
        }
        continue value;
      }
      if (c !== (kind === LBRACE ? RBRACE : RBRACKET)) return BAD;
      i += 1;
      depth -= 1;
    }
  }
}

/** Set by `keyValue`: the elision inside the key's value, and whether the value itself is elided. */
let keySpec: CompiledElision | null = null;
let keyElided = false;

/** Reads `"key" :` at `i` (whitespace skipped before the colon); returns the index after the colon, or -1. */
function keyValue(
  bytes: Buffer,
  i: number,
  end: number,
  view: Int32Array,
  spec: CompiledElision | null,
  strict: boolean,
): number {
  keySpec = null;
  keyElided = false;
  if (i >= end || bytes[i] !== QUOTE) return -1;
  const from = i + 1;
  const after = strict ? stringEnd(bytes, from, end, view) : looseStringEnd(bytes, from, end);
  if (after < 0) return -1;
  if (spec !== null && spec.keyBytes.length > 0) {
    const escaped = strict ? sawEscape : hasBackslash(bytes, from, after - 1);
    const child = childOf(spec, bytes, from, after - 1, escaped);
    if (child === BAD_KEY) return -1;
    if (child === null) keyElided = true;
    else if (child !== undefined) keySpec = child;
  }
  const colon = whitespaceEnd(bytes, after, end);
  if (colon >= end || bytes[colon] !== COLON) return -1;
  return colon + 1;
}

function hasBackslash(bytes: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k += 1) if (bytes[k] === BACKSLASH) return true;
  return false;
}

/** Copies `bytes[from, to)` to `target` at `at`; returns the index after it. Short runs byte by byte (a `copy` call costs more). */
function copyInto(target: Buffer, at: number, bytes: Buffer, from: number, to: number): number {
  if (to - from > 64) return at + bytes.copy(target, at, from, to);
  for (let k = from; k < to; k += 1) target[at++] = bytes[k] as number;
  return at;
}

/** The text of `bytes[start, end)` with the cut ranges replaced by the placeholder, decoded once. */
function assemble(bytes: Buffer, start: number, end: number): string {
  if (cuts.length === 0) return bytes.toString('utf8', start, end);
  let size = end - start;
  for (let n = 0; n < cuts.length; n += 2) size -= (cuts[n + 1] as number) - (cuts[n] as number) - PLACEHOLDER.length;
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
  let at = 0;
  let from = start;
  for (let n = 0; n < cuts.length; n += 2) {
    at = copyInto(scratch, at, bytes, from, cuts[n] as number);
    // The placeholder, `null`.
    scratch[at] = 0x6e;
    scratch[at + 1] = 0x75;
    scratch[at + 2] = 0x6c;
    scratch[at + 3] = 0x6c;
    at += 4;
    from = cuts[n + 1] as number;
  }
  at = copyInto(scratch, at, bytes, from, end);
  const text = scratch.toString('utf8', 0, at);
  // One huge line must not keep its size of memory for the rest of the run.
  if (cuts.length > 1024) cuts = [];
  if (scratch.length > 1 << 24) scratch = Buffer.allocUnsafeSlow(1 << 16);
  return text;
}
