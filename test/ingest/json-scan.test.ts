import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileElision,
  type Elision,
  elideParsed,
  isJson,
  type ScanCheck,
  scanJson,
  type ScanOutcome,
} from '../../src/ingest/json-scan.js';

/** What JSON.parse says of the bytes, decoded as a line is. */
function parseOutcome(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** The bytes placed at an offset inside a larger buffer (with bytes around them that must not be read). */
function embedded(bytes: Buffer, pad: number): { buffer: Buffer; start: number; end: number } {
  const buffer = Buffer.alloc(bytes.length + pad + 7, 0x22);
  bytes.copy(buffer, pad);
  return { buffer, start: pad, end: pad + bytes.length };
}

function scan(
  text: string | Buffer,
  elision: Elision | null = null,
  maxDepth = 10_000,
  pad = 3,
  check: ScanCheck = 'all',
): ScanOutcome {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const { buffer, start, end } = embedded(bytes, pad);
  const outcome = scanJson(buffer, start, end, elision === null ? null : compileElision(elision), maxDepth, check);
  if (check === 'all') expect(isJson(buffer, start, end, maxDepth)).toBe(outcome.kind === 'json');
  return outcome;
}

function valid(text: string): boolean {
  return scan(text).kind === 'json';
}

const SPEC: Elision = {
  keys: {
    big: true,
    message: { keys: { content: { items: { keys: { text: true, input: true } } } } },
    list: { items: { keys: { a: true } } },
    obj: { keys: { k: {}, big: { keys: { text: true } } } },
  },
};

describe('scanJson: the grammar JSON.parse accepts (hand-written)', () => {
  const accepted = [
    '0',
    '-0',
    '1e5',
    '1E+5',
    '-1.25e-3',
    '10.0',
    '123456789012345678901234567890',
    'true',
    'false',
    'null',
    '""',
    '"a\\"b"',
    '"\\\\ \\/ \\b \\f \\n \\r \\t"',
    '"\\u00e9\\uD83D\\uDE00"',
    '"\\ud800"',
    '"\\uABCD\\uabcd"',
    '"é — 日本 😀"',
    '{}',
    '[]',
    ' \t\r\n{ "a" : [ 1 , { } , [ ] ] } \t\r\n',
    '{"a":1,"a":2}',
    '{"__proto__":{"x":1}}',
    '[[[[[[[[[[]]]]]]]]]]',
  ];
  const rejected = [
    '',
    ' ',
    '01',
    '-01',
    '1.',
    '.5',
    '-',
    '+1',
    '1e',
    '1e+',
    '0x10',
    'NaN',
    'Infinity',
    'tru',
    'nul',
    'True',
    '"',
    '"abc',
    '"\\x41"',
    '"\\u12"',
    '"\\u12G4"',
    '"\\',
    '"a\tb"',
    '"a\u0001b"',
    '"a\u001fb"',
    '{',
    '{"a"}',
    '{"a":}',
    '{"a":1,}',
    '{a:1}',
    "{'a':1}",
    '[1,]',
    '[,1]',
    '[1 2]',
    '{"a":1}}',
    '{"a":1} x',
    '{"a":1}{"b":2}',
    '1 2',
    '\u00a0{}',
    '\ufeff{}',
    '{"a":1\u000b}',
    '{"a":/*c*/1}',
  ];
  it.each(accepted)('accepts %j as JSON.parse does', (text) => {
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(valid(text)).toBe(true);
  });
  it.each(rejected)('rejects %j as JSON.parse does', (text) => {
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(scan(text).kind).toBe('invalid');
  });

  it('never reads past the end it is given', () => {
    // The padding around the bytes is `"`: reading it would close strings that are unclosed.
    for (const text of ['"abc', '{"a":"b', '[1', 'tru', '-', '{"a":1', '"\\u00']) {
      expect(scan(text).kind).toBe('invalid');
    }
  });

  it('accepts invalid UTF-8 inside strings (decoded to U+FFFD) but not outside them', () => {
    expect(scan(Buffer.from([0x22, 0xff, 0xe2, 0x22])).kind).toBe('json');
    expect(JSON.parse(Buffer.from([0x22, 0xff, 0xe2, 0x22]).toString('utf8'))).toBe('\ufffd\ufffd');
    expect(scan(Buffer.from([0x5b, 0xff, 0x5d])).kind).toBe('invalid');
  });

  it('is too-deep past maxDepth levels of arrays and objects (the root is level 1)', () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(scan(nested(5), null, 5).kind).toBe('json');
    expect(scan(nested(6), null, 5).kind).toBe('too-deep');
    expect(scan('{"a":{"b":[1]}}', null, 3).kind).toBe('json');
    expect(scan('{"a":{"b":[[1]]}}', null, 3).kind).toBe('too-deep');
    expect(scan(nested(100_000), null, 1000).kind).toBe('too-deep');
  });

  it('scans strings across every alignment of the buffer', () => {
    const text = '{"k":"0123456789abcdef\\"0123\\u00e9\\n 😀 tail","n":[1,2]}';
    for (let pad = 0; pad < 8; pad += 1) {
      const outcome = scan(text, null, 100, pad);
      expect(outcome).toEqual({ kind: 'json', text });
    }
  });
});

describe('scanJson: elision', () => {
  it('replaces elided values by null, by key path, and keeps everything else byte for byte', () => {
    const text = '{"big":{"x":[1,2,"}"]},"message":{"content":[{"type":"text","text":"hi"},"s",{"input":[]}]},"k":"v"}';
    expect(scan(text, SPEC)).toEqual({
      kind: 'json',
      text: '{"big":null,"message":{"content":[{"type":"text","text":null},"s",{"input":null}]},"k":"v"}',
    });
  });

  it('elides every occurrence of a duplicate key, so JSON.parse still keeps the last', () => {
    const text = '{"message":{"content":[]},"big":1,"message":{"content":[{"text":"x","id":1}]},"big":[2]}';
    const outcome = scan(text, SPEC);
    if (outcome.kind !== 'json') throw new Error(outcome.kind);
    expect(JSON.parse(outcome.text)).toEqual(elideParsed(JSON.parse(text), SPEC));
    expect(JSON.parse(outcome.text)).toEqual({ message: { content: [{ text: null, id: 1 }] }, big: null });
  });

  it('matches keys written with escapes by their text', () => {
    const outcome = scan('{"b\\u0069g":"x","bi\\u0067 ":"y"}', SPEC);
    if (outcome.kind !== 'json') throw new Error(outcome.kind);
    expect(JSON.parse(outcome.text)).toEqual({ big: null, 'big ': 'y' });
  });

  it('applies a rule only to the kind of value it names (keys to objects, items to arrays)', () => {
    const text = '{"message":[{"content":[{"text":1}]}],"list":{"a":1},"big":"s"}';
    const outcome = scan(text, SPEC);
    expect(outcome).toEqual({ kind: 'json', text: '{"message":[{"content":[{"text":1}]}],"list":{"a":1},"big":null}' });
    expect(scan('{"list":[{"a":[1]},{"b":2}]}', SPEC)).toEqual({ kind: 'json', text: '{"list":[{"a":null},{"b":2}]}' });
  });

  it('keeps whitespace around an elided value and still checks what it elides', () => {
    expect(scan('{ "big" : [1, 2] , "k" : 1 }', SPEC)).toEqual({ kind: 'json', text: '{ "big" : null , "k" : 1 }' });
    expect(scan('{"big":[1,2,],"k":1}', SPEC).kind).toBe('invalid');
    expect(scan('{"big":"a\tb"}', SPEC).kind).toBe('invalid');
  });

  it("'structure' checks everything but the characters inside strings", () => {
    const structure = (text: string): string => scan(text, SPEC, 10_000, 3, 'structure').kind;
    expect(structure('{"big":"a\tb\\"c\\\\","k":1}')).toBe('json');
    expect(structure('{"big":"a\u0001\\x"}')).toBe('json');
    expect(scan('{"big":"a\u0001\\x"}', SPEC).kind).toBe('invalid');
    for (const bad of ['{"big":"a\\\\"b"}', '{"big":01}', '{"big":tru}', '{"big":[1,]}', '{"big":"x"', '{"b\\x":1}'])
      expect(structure(bad)).toBe('invalid');
  });

  it('refuses a key it could not match on bytes', () => {
    expect(() => compileElision({ keys: { é: true } })).toThrow(/plain ASCII/);
  });
});

/** A tiny deterministic generator (mulberry32) for the serializer's choices. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text of `value` written in the many ways JSON allows: whitespace, \u escapes, other number forms. */
function looseJson(value: unknown, rand: () => number): string {
  const ws = (): string => (rand() < 0.2 ? [' ', '\t', '\r\n', '\n  '][Math.floor(rand() * 4)] : '') ?? '';
  const str = (s: string): string => {
    let out = '"';
    for (const ch of JSON.stringify(s)
      .slice(1, -1)
      .match(/\\u[0-9a-f]{4}|\\.|[\s\S]/gu) ?? []) {
      if (ch.length === 1 && rand() < 0.15) {
        const code = ch.charCodeAt(0).toString(16).padStart(4, '0');
        out += `\\u${rand() < 0.5 ? code : code.toUpperCase()}`;
      } else out += ch;
    }
    return `${out}"`;
  };
  const write = (v: unknown): string => {
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v === 'number') {
      const plain = JSON.stringify(v);
      return rand() < 0.2 && Number.isFinite(v) ? v.toExponential().replace('e+', rand() < 0.5 ? 'E+' : 'e') : plain;
    }
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${ws()}${v.map((item) => `${ws()}${write(item)}${ws()}`).join(',')}${ws()}]`;
    const entries = Object.entries(v as Record<string, unknown>);
    return `{${ws()}${entries.map(([k, item]) => `${ws()}${str(k)}${ws()}:${ws()}${write(item)}${ws()}`).join(',')}${ws()}}`;
  };
  return `${ws()}${write(value)}${ws()}`;
}

/** JSON values whose keys often hit the elision spec (and duplicates, and "__proto__"). */
const KEYS = ['big', 'message', 'content', 'text', 'input', 'list', 'type', 'k', '__proto__', 'bi', 'obj', 'a'];
const jsonValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary' }),
    // Escapes next to quotes and each other: `\\"`, `\"`, `\u0001`.
    fc.string({ unit: fc.constantFrom('a', '\\', '"', '\n', '\u0001', 'é', '😀', '/'), maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 3 })), tie('value')), {
        maxLength: 5,
      })
      .map((entries) => ({ entries })),
  ),
})).value;

/** Text of a generated value: objects are written as their entries (so duplicate keys survive). */
function textOf(value: unknown, rand: () => number): string {
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    if (typeof v === 'object' && v !== null && 'entries' in v) {
      const entries = (v as { entries: [string, unknown][] }).entries;
      return `{${entries.map(([k, item]) => `${looseJson(k, rand)}:${write(item)}`).join(',')}}`;
    }
    return looseJson(v, rand);
  };
  return write(value);
}

/** Byte mutations that tend to hit the grammar's edges. */
const mutation = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('insert', 'replace', 'delete', 'truncate'),
  byte: fc.constantFrom(
    0x22,
    0x5c,
    0x7b,
    0x7d,
    0x5b,
    0x5d,
    0x2c,
    0x3a,
    0x30,
    0x31,
    0x2d,
    0x2e,
    0x65,
    0x2b,
    0x75,
    0x41,
    0x20,
    0x09,
    0x0a,
    0x0d,
    0x00,
    0x1f,
    0x7f,
    0x80,
    0xc3,
    0xe2,
    0xff,
    0x74,
    0x6e,
  ),
});

function mutate(bytes: Buffer, steps: readonly { at: number; op: string; byte: number }[]): Buffer {
  let out = [...bytes];
  for (const { at, op, byte } of steps) {
    const i = out.length === 0 ? 0 : at % (out.length + (op === 'insert' ? 1 : 0));
    if (op === 'insert') out.splice(i, 0, byte);
    else if (op === 'replace' && out.length > 0) out[i] = byte;
    else if (op === 'delete') out.splice(i, 1);
    else if (op === 'truncate') out = out.slice(0, i);
  }
  return Buffer.from(out);
}

/**
 * The property: the scan agrees with JSON.parse on validity, and its elided text parses to the
 * elided value; a 'structure' scan never rejects what JSON.parse accepts, and gives the same text.
 */
function agrees(bytes: Buffer, pad: number): void {
  const outcome = scan(bytes, SPEC, 10_000, pad);
  const loose = scan(bytes, SPEC, 10_000, pad, 'structure');
  const expected = parseOutcome(bytes);
  if (!expected.ok) {
    expect(outcome.kind).toBe('invalid');
    return;
  }
  if (outcome.kind !== 'json') throw new Error(`JSON.parse accepts ${JSON.stringify(bytes.toString('utf8'))}`);
  expect(JSON.parse(outcome.text)).toEqual(elideParsed(expected.value, SPEC));
  expect(loose).toEqual(outcome);
}

describe('scanJson = JSON.parse (differential properties)', () => {
  // Checked against deliberate bugs: accepting a leading zero (`01`, `-01`) fails the mutated-bytes
  // property; eliding only the first occurrence of an elided key fails the valid-JSON one
  // (counterexample `{"big":null,"big":""}`); counting only one backslash before a quote in
  // 'structure' mode fails both (counterexample the string "\\").
  it('valid JSON, written any way JSON allows: valid, and the elided text parses to the elided value', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), fc.nat({ max: 7 }), (value, seed, pad) => {
        agrees(Buffer.from(textOf(value, random(seed)), 'utf8'), pad);
      }),
      { numRuns: 400 },
    );
  });

  it('mutated bytes: valid exactly when JSON.parse accepts them, with the same elided value', () => {
    fc.assert(
      fc.property(
        jsonValue,
        fc.integer(),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.nat({ max: 7 }),
        (value, seed, steps, pad) => {
          agrees(mutate(Buffer.from(textOf(value, random(seed)), 'utf8'), steps), pad);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('arbitrary bytes: never accepts what JSON.parse rejects', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat({ max: 7 }), (raw, pad) => {
        agrees(Buffer.from(raw), pad);
      }),
      { numRuns: 500 },
    );
  });
});
