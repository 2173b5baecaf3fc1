/**
 * A price read from a third-party price file (models.dev, LiteLLM) before it is matched to the
 * bundled table: the model key and provider as the file names them, rates in pUSD per token.
 */
import type { LongContextDraft, RatesDraft } from './price-table.js';

export type PriceCandidate = {
  readonly key: string;
  readonly provider: string;
  readonly rates: RatesDraft;
  readonly longContext: LongContextDraft | null;
  readonly contextWindowTokens: number | null;
  readonly maxOutputTokens: number | null;
  readonly source: string;
};

/** Parsing a price file: candidates, or the one-line reason the file is unusable. */
export type CandidatesResult =
  | { readonly kind: 'ok'; readonly candidates: readonly PriceCandidate[] }
  | { readonly kind: 'invalid'; readonly reason: string };

/** A zod issue path as `a.b[2].c`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}
