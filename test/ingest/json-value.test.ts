import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestampMsOf } from '../../src/ingest/json-value.js';

function viaDateParse(text: string): number | null {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

describe('timestampMsOf', () => {
  // Deliberate bugs checked once: accepting months up to 13 in the fast path (a 13th month would
  // roll over into January, Date.parse says NaN) fails this property; so does a century rule off by
  // one in the day count (counterexample 2100-03-01T00:00:00.000Z). An earlier generator that put
  // one string in a hundred on the fast path let the second bug through.
  it('reads an ISO-8601 string exactly as Date.parse does (fast path for the form logs write)', () => {
    const digit = fc.integer({ min: 0, max: 9 }).map(String);
    const digits = (n: number): fc.Arbitrary<string> =>
      fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''));
    // Mostly in range (the fast path), sometimes out of range or any digits (Date.parse's rules).
    const field = (n: number, max: number): fc.Arbitrary<string> =>
      fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0')) },
        { weight: 1, arbitrary: digits(n) },
      );
    const mostly = (usual: string, ...others: string[]): fc.Arbitrary<string> =>
      fc.oneof({ weight: 6, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(...others) });
    const iso = fc
      .tuple(
        fc.oneof(field(4, 9999), fc.constantFrom('1969', '1970', '2025', '2100', '2400', '0099')),
        field(2, 13),
        field(2, 32),
        field(2, 24),
        field(2, 60),
        field(2, 60),
        digits(3),
        mostly('Z', 'z', '+00:00', ''),
        mostly('T', 't', ' '),
      )
      .map(([y, mo, d, h, mi, s, ms, zone, t]) => `${y}-${mo}-${d}${t}${h}:${mi}:${s}.${ms}${zone}`);
    const mangled = fc.tuple(iso, fc.nat(), fc.constantFrom('x', '-', ':', '.', '5', '')).map(([text, at, c]) => {
      const k = at % text.length;
      return text.slice(0, k) + c + text.slice(k + 1);
    });
    fc.assert(
      fc.property(fc.oneof(iso, mangled, fc.string({ maxLength: 30 })), (text) => {
        expect(timestampMsOf(text)).toBe(viaDateParse(text));
      }),
      { numRuns: 3000 },
    );
    for (const text of [
      '2025-07-16T19:58:34.347Z',
      '2025-02-30T00:00:00.000Z',
      '2025-13-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
    ]) {
      expect(timestampMsOf(text)).toBe(viaDateParse(text));
    }
  });

  it('takes numbers as milliseconds and refuses what is no date', () => {
    expect(timestampMsOf(1_700_000_000_123.9)).toBe(1_700_000_000_123);
    expect(timestampMsOf(9e15)).toBeNull();
    expect(timestampMsOf('yesterday')).toBeNull();
    expect(timestampMsOf(null)).toBeNull();
  });
});
