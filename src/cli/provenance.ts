/**
 * The provenance printed at the foot of an HTML report: cachecost's version, when it was made,
 * the command and its inputs, and the price table. The clock is read here, in the CLI;
 * `SOURCE_DATE_EPOCH` (reproducible-builds.org) fixes the time, and `0` leaves it out.
 */
import { BUNDLED_PRICES_DATE } from '../cost/bundled-prices.js';
import type { Provenance } from '../report/html-page.js';

export type ProvenanceInput = {
  readonly argv: readonly string[];
  readonly version: string;
  readonly paths: readonly string[];
  readonly pricing: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
};

function generatedAt(env: ProvenanceInput['env']): string | null {
  const epoch = env['SOURCE_DATE_EPOCH']?.trim();
  if (epoch !== undefined && /^\d+$/.test(epoch))
    return epoch === '0' ? null : new Date(Number(epoch) * 1000).toISOString();
  return new Date().toISOString();
}

export function provenance(input: ProvenanceInput): Provenance {
  return {
    version: input.version,
    generatedAt: generatedAt(input.env),
    command: ['cachecost', ...input.argv].join(' '),
    inputs: input.paths,
    priceTable: `bundled table of ${BUNDLED_PRICES_DATE}${input.pricing === undefined ? '' : `, overlaid by ${input.pricing}`}`,
  };
}
