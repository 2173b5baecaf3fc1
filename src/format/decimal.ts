/**
 * A number in fixed decimals with en-US grouping, as `Intl.NumberFormat('en-US', …)` formats it,
 * without ICU: the first `Intl.NumberFormat` of a process costs ~20 ms (its locale data), which was
 * ~13% of a warm `report` printing a table. The same text, held to Intl's by a property over
 * random doubles (`test/format/decimal.test.ts`):
 *
 * - the digits are those of the shortest representation that reads back as the same double (as
 *   ICU takes them; `String(x)` gives them), rounded half away from zero (Intl's default
 *   `halfExpand`): 1.005 → `1.01`, 2.5 → `3`;
 * - the integer part grouped by thousands with `,` from four digits on (`1,000`);
 * - the sign by `signDisplay`: `auto` shows `-` on every negative value, negative zero and values
 *   that round to zero included (`-0`); `negative` only on a negative value that does not round
 *   to zero; `exceptZero` also `+` on a positive one that does not.
 *
 * Not finite values go to Intl itself (no caller formats one on its common path).
 */

export type SignDisplay = 'auto' | 'negative' | 'exceptZero';

export type DecimalOptions = {
  /** Digits after the point, exactly (Intl's minimum and maximum fraction digits both). */
  readonly fractionDigits: number;
  readonly signDisplay: SignDisplay;
  /** Put before the digits, after the sign (`$`: Intl's `style: 'currency'` in USD). */
  readonly prefix?: string;
};

/** `value` as Intl formats it in en-US with these options (`fractionDigits` 0–20). */
export function formatDecimal(value: number, options: DecimalOptions): string {
  const { fractionDigits, signDisplay } = options;
  const prefix = options.prefix ?? '';
  if (!Number.isFinite(value)) return intlFormat(value, options);
  const negative = value < 0 || Object.is(value, -0);
  const { integer, fraction, zero } = roundedDigits(Math.abs(value), fractionDigits);
  const sign =
    signDisplay === 'auto'
      ? negative
        ? '-'
        : ''
      : zero
        ? ''
        : negative
          ? '-'
          : signDisplay === 'exceptZero'
            ? '+'
            : '';
  const grouped = groupThousands(integer);
  return fraction === '' ? `${sign}${prefix}${grouped}` : `${sign}${prefix}${grouped}.${fraction}`;
}

/**
 * The integer and fraction digits of a finite non-negative `magnitude` rounded to `fractionDigits`,
 * from its shortest round-trip representation, half away from zero.
 */
function roundedDigits(
  magnitude: number,
  fractionDigits: number,
): { readonly integer: string; readonly fraction: string; readonly zero: boolean } {
  // value = 0.<digits> × 10^point
  let { digits, point } = shortestDigits(magnitude);
  // How many of the digits the rounding keeps (those before the first dropped one).
  const keep = point + fractionDigits;
  if (keep < digits.length) {
    // The first dropped digit: a 5 or more rounds up (below the first digit, an implied 0).
    const roundsUp = keep >= 0 && digits.charCodeAt(keep) >= 0x35;
    if (keep <= 0) {
      // Nothing kept: one unit of the last place (0.1 × 10^(1 − fractionDigits)), or zero.
      digits = roundsUp ? '1' : '';
      point = roundsUp ? 1 - fractionDigits : 1;
    } else {
      digits = digits.slice(0, keep);
      if (roundsUp) {
        const carried = incrementDigits(digits);
        if (carried.length > digits.length) point += 1;
        digits = carried;
      }
    }
  }
  const zero = !/[1-9]/.test(digits);
  let integer: string;
  let fraction: string;
  if (point <= 0) {
    integer = '0';
    fraction = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    integer = digits + '0'.repeat(point - digits.length);
    fraction = '';
  } else {
    integer = digits.slice(0, point);
    fraction = digits.slice(point);
  }
  // The digits start with a non-zero one (or are a lone 0), and at most `fractionDigits` follow the point.
  return { integer, fraction: fraction.padEnd(fractionDigits, '0'), zero };
}

/** The significant digits of `magnitude` (finite, ≥ 0) and where the point goes: value = 0.<digits> × 10^point. */
function shortestDigits(magnitude: number): { digits: string; point: number } {
  const text = String(magnitude);
  const e = text.indexOf('e');
  const mantissa = e === -1 ? text : text.slice(0, e);
  const exponent = e === -1 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const all = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let point = (dot === -1 ? mantissa.length : dot) + exponent;
  let start = 0;
  while (start < all.length - 1 && all.charCodeAt(start) === 0x30) start += 1;
  point -= start;
  const digits = all.slice(start).replace(/0+$/, '');
  return digits === '' ? { digits: '0', point: 1 } : { digits, point };
}

/** A string of decimal digits plus one in its last place (`999` → `1000`). */
function incrementDigits(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i -= 1;
  if (i < 0) return `1${'0'.repeat(digits.length)}`;
  return `${digits.slice(0, i)}${String.fromCharCode(digits.charCodeAt(i) + 1)}${'0'.repeat(digits.length - i - 1)}`;
}

function groupThousands(integer: string): string {
  if (integer.length <= 3) return integer;
  let out = integer.slice(0, integer.length % 3 || 3);
  for (let i = out.length; i < integer.length; i += 3) out += `,${integer.slice(i, i + 3)}`;
  return out;
}

function intlFormat(value: number, options: DecimalOptions): string {
  return new Intl.NumberFormat('en-US', {
    minimumFractionDigits: options.fractionDigits,
    maximumFractionDigits: options.fractionDigits,
    signDisplay: options.signDisplay,
    ...(options.prefix === '$' ? { style: 'currency', currency: 'USD' } : {}),
  }).format(value);
}
