/**
 * Money units. Rates are integer pico-dollars per token (1 pUSD = 1e-12 USD, so the rate equals
 * micro-dollars per million tokens: $3.75/MTok = 3,750,000 pUSD/token). A request's cost is
 * tokens × rate, an exact integer in pico-dollars, kept as bigint in TypeScript and HUGEINT in
 * DuckDB; USD numbers are produced only at the edge. Every published price is a whole number of
 * micro-dollars per MTok, so converting a price file loses nothing.
 */

export const PICO_USD_PER_USD = 1_000_000_000_000n;

/** A price in USD per million tokens as an integer rate in pUSD per token (rounded to the nearest unit). */
export function usdPerMTokToPicoPerToken(usdPerMTok: number): number {
  return Math.round(usdPerMTok * 1_000_000);
}

/** A price in USD per token (LiteLLM's unit) as an integer rate in pUSD per token. */
export function usdPerTokenToPicoPerToken(usdPerToken: number): number {
  return Math.round(usdPerToken * 1_000_000_000_000);
}

/** An integer rate in pUSD per token back to USD per million tokens (display only). */
export function picoPerTokenToUsdPerMTok(picoPerToken: number): number {
  return picoPerToken / 1_000_000;
}

/**
 * rate × tokens in pico-dollars, exact: multiplied as numbers where the product is a safe integer
 * (a true product past 2^53 rounds to 2^53 or more, which is not one), else as BigInts; one BigInt
 * made instead of three on the common path.
 */
export function picoProduct(rate: number, tokens: number): bigint {
  const product = rate * tokens;
  return Number.isSafeInteger(product) ? BigInt(product) : BigInt(rate) * BigInt(tokens);
}

/** Pico-dollars as a USD number: the one lossy step, taken only at the edge. */
export function picoUsdToUsd(picoUsd: bigint): number {
  const whole = picoUsd / PICO_USD_PER_USD;
  const fraction = picoUsd % PICO_USD_PER_USD;
  return Number(whole) + Number(fraction) / 1e12;
}

/** Pico-dollars as an exact decimal USD string without trailing zeros (`13875000000n` → `"0.013875"`). */
export function formatPicoUsd(picoUsd: bigint): string {
  const negative = picoUsd < 0n;
  const magnitude = negative ? -picoUsd : picoUsd;
  const whole = magnitude / PICO_USD_PER_USD;
  const fraction = (magnitude % PICO_USD_PER_USD).toString().padStart(12, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole.toString()}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A bigint count (DuckDB BIGINT/HUGEINT) as a number; throws past 2^53, which no token count reaches. */
export function bigintToSafeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`integer ${value.toString()} does not fit a JavaScript number`);
  }
  return Number(value);
}

/** An exact decimal USD string (as `formatPicoUsd` writes it) back to pico-dollars; throws on anything else. */
export function parseUsdToPico(usd: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(usd);
  if (match === null) throw new RangeError(`not an exact USD decimal: ${usd}`);
  const pico = BigInt(match[2] ?? '0') * PICO_USD_PER_USD + BigInt((match[3] ?? '').padEnd(12, '0'));
  return match[1] === '-' ? -pico : pico;
}
