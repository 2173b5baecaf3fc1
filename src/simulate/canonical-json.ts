/**
 * Whether a text is already what `JSON.stringify(JSON.parse(text))` gives back, decided by one scan
 * of its characters instead of building the parsed value and serializing it again: most logs store
 * tool arguments as `JSON.stringify` output, and parsing them only to find that out was most of
 * what a session's first replay spent on its tool calls (`activityOf`).
 *
 * Sound, not complete: `true` only when the round trip gives the same text; `false` whenever it
 * might not (the caller then does the round trip). Conservatively `false` for:
 * - whitespace outside strings, `\u` and `\/` escapes, lone surrogates, control characters;
 * - a number that is not its own shortest form (`1.50`, `1e3`, `-0`, `01`, beyond double range);
 * - an object with a repeated key (the parsed object keeps the first position and the last
 *   value) or a key of digits alone (V8 lists array-index keys first, in ascending order);
 * - nesting deeper than `MAX_DEPTH`.
 */

const MAX_DEPTH = 256;
/** Objects with more keys than this check repeats with a set rather than a scan of the list. */
const LINEAR_KEYS = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
/** What ends a plain stretch of a string literal: its quote, an escape, a control character, a surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what the scan must stop at
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/g;

export function stringifiesToItself(text: string): boolean {
  const end = new Scanner(text).value(0, 0);
  return end === text.length;
}

class Scanner {
  constructor(private readonly text: string) {}

  /** The end of the value starting at `at`, or -1 when it is not known to round-trip. */
  value(at: number, depth: number): number {
    const text = this.text;
    const code = text.charCodeAt(at);
    if (code === QUOTE) return this.string(at);
    if (code === 0x7b) return depth >= MAX_DEPTH ? -1 : this.object(at, depth + 1);
    if (code === 0x5b) return depth >= MAX_DEPTH ? -1 : this.array(at, depth + 1);
    if (code === MINUS || (code >= ZERO && code <= NINE)) return this.number(at);
    if (text.startsWith('true', at)) return at + 4;
    if (text.startsWith('false', at)) return at + 5;
    if (text.startsWith('null', at)) return at + 4;
    return -1;
  }

  /** The end of the string literal at `at` (after its closing quote), -1 unless it is as `JSON.stringify` writes it. */
  string(at: number): number {
    const text = this.text;
    const length = text.length;
    let i = at + 1;
    while (i < length) {
      // Straight to the next character that is not plain (a regex scans a long argument far
      // faster than a loop over its characters).
      SPECIAL.lastIndex = i;
      if (!SPECIAL.test(text)) return -1;
      i = SPECIAL.lastIndex - 1;
      const code = text.charCodeAt(i);
      if (code === QUOTE) return i + 1;
      if (code < 0x20) return -1;
      if (code === BACKSLASH) {
        const next = text.charCodeAt(i + 1);
        // The escapes `JSON.stringify` writes for `"`, `\` and the control characters that have a
        // short form; `\uXXXX` and `\/` are left to the round trip.
        if (
          next !== QUOTE &&
          next !== BACKSLASH &&
          next !== 0x62 &&
          next !== 0x66 &&
          next !== 0x6e &&
          next !== 0x72 &&
          next !== 0x74
        )
          return -1;
        i += 2;
        continue;
      }
      // A surrogate: a pair stays as it is; a lone one is written as `\uXXXX`.
      const low = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return -1;
      i += 2;
    }
    return -1;
  }

  number(at: number): number {
    const text = this.text;
    let i = at;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (!(
        (code >= ZERO && code <= NINE) ||
        code === MINUS ||
        code === 0x2b ||
        code === 0x2e ||
        (code | 0x20) === 0x65
      ))
        break;
    }
    const token = text.slice(at, i);
    // Integers up to 15 digits without a leading zero are their own shortest form; anything else
    // is compared with it (which also rejects what is not a JSON number).
    const digitsFrom = token.charCodeAt(0) === MINUS ? 1 : 0;
    const digits = token.length - digitsFrom;
    const first = token.charCodeAt(digitsFrom);
    if (digits >= 1 && digits <= 15 && first > ZERO && first <= NINE) {
      let integer = true;
      for (let k = digitsFrom + 1; k < token.length; k++) {
        const code = token.charCodeAt(k);
        if (code < ZERO || code > NINE) {
          integer = false;
          break;
        }
      }
      if (integer) return i;
    }
    return String(Number(token)) === token ? i : -1;
  }

  array(at: number, depth: number): number {
    const text = this.text;
    let i = at + 1;
    if (text.charCodeAt(i) === 0x5d) return i + 1;
    for (;;) {
      i = this.value(i, depth);
      if (i < 0) return -1;
      const code = text.charCodeAt(i);
      if (code === 0x5d) return i + 1;
      if (code !== COMMA) return -1;
      i += 1;
    }
  }

  object(at: number, depth: number): number {
    const text = this.text;
    let i = at + 1;
    if (text.charCodeAt(i) === 0x7d) return i + 1;
    const keys: string[] = [];
    let keySet: Set<string> | null = null;
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return -1;
      const keyEnd = this.string(i);
      if (keyEnd < 0) return -1;
      // Compared as written: the escapes accepted are the only way `JSON.stringify` writes a
      // string, so two keys written differently are different keys.
      const key = text.slice(i + 1, keyEnd - 1);
      if (isDigits(key)) return -1;
      if (keySet !== null) {
        if (keySet.has(key)) return -1;
        keySet.add(key);
      } else {
        if (keys.includes(key)) return -1;
        keys.push(key);
        if (keys.length > LINEAR_KEYS) keySet = new Set(keys);
      }
      if (text.charCodeAt(keyEnd) !== COLON) return -1;
      i = this.value(keyEnd + 1, depth);
      if (i < 0) return -1;
      const code = text.charCodeAt(i);
      if (code === 0x7d) return i + 1;
      if (code !== COMMA) return -1;
      i += 1;
    }
  }
}

/** A key of digits alone (every array-index key is one; V8 lists those before the others). */
function isDigits(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < ZERO || code > NINE) return false;
  }
  return true;
}
