/**
 * `stringifiesToItself` (canonical-json.ts) decides without parsing whether a text is what
 * `JSON.stringify(JSON.parse(text))` gives back. It may say no where the answer is yes (the
 * caller then does the round trip) but never yes where it is no; and it must say yes for plain
 * `JSON.stringify` output of ordinary values, or it saves nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifiesToItself } from '../../src/simulate/canonical-json.js';

function roundTrips(text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

/** Texts near the edge: stringify output, indented, edited by one character, odd numbers and keys. */
const near = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
  fc.json(),
  fc.string({ unit: 'binary' }),
  // String literals of any code units (controls, lone surrogates, stray escapes), alone or as a key.
  fc.string({ unit: 'binary' }).map((text) => `"${text}"`),
  fc.string({ unit: 'binary' }).map((text) => `{"${text}":1}`),
  fc.string({ unit: fc.constantFrom(...'{}[]":,-+.0123456789eE \\/ntrufalsbu'.split('')), maxLength: 24 }),
  fc
    .tuple(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.nat(),
      fc.constantFrom(' ', '"', '\\', '0', '-', ',', '\u0001', '\ud800', '/', 'u', 'e'),
    )
    .map(([text, at, char]) => {
      const i = text.length === 0 ? 0 : at % text.length;
      return text.slice(0, i) + char + text.slice(i);
    }),
  fc.constantFrom(
    '{"a":1,"a":2}',
    '{"b":1,"2":0}',
    '{"1":0}',
    '{"01":0,"x":1}',
    '1.50',
    '-0',
    '1e400',
    '1e21',
    '1e+21',
    '0.1',
    '-1.5e-7',
    '123456789012345678',
    '"\\u0041"',
    '"\\u001f"',
    '"\\/"',
    '"\ud83d\ude00"',
    '"\ude00"',
    '{"__proto__":1}',
    '{"a\\"b":1}',
    `${'['.repeat(300)}${']'.repeat(300)}`,
    '',
    'nul',
    'true ',
    '[1,]',
    '{"a":}',
  ),
);

describe('stringifiesToItself', () => {
  it('never says yes where the round trip changes the text', () => {
    fc.assert(
      fc.property(near, (text) => {
        if (stringifiesToItself(text)) expect(roundTrips(text)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('says yes for JSON.stringify output of objects with ordinary keys, strings and numbers', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !/^\d+$/.test(k));
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 20 }),
    }));
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        // Strings with control characters other than \b \f \n \r \t are written with \u: left to the round trip.
        if (/\\u/.test(text)) return;
        expect(stringifiesToItself(text)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('examples', () => {
    expect(stringifiesToItself('{"command":"npm test","timeout":120}')).toBe(true);
    expect(stringifiesToItself('{"command": "npm test"}')).toBe(false);
    expect(stringifiesToItself('{"a":1,"a":2}')).toBe(false);
    expect(stringifiesToItself('{"b":1,"2":0}')).toBe(false);
    expect(stringifiesToItself('[1.5,-3,0,"x\\n\\"y"]')).toBe(true);
    expect(stringifiesToItself('1.50')).toBe(false);
    expect(stringifiesToItself('-0')).toBe(false);
  });
});
