/**
 * LiteLLM's `model_prices_and_context_window.json` (pricing.md §2): one object keyed by model
 * id, prices in USD per token (`input_cost_per_token`, `output_cost_per_token`,
 * `cache_read_input_token_cost`, `cache_creation_input_token_cost` = 5m write,
 * `cache_creation_input_token_cost_above_1hr` = 1h write), long-context rates as
 * `*_above_<N>k_tokens`, limits `max_input_tokens` / `max_output_tokens`, provider
 * `litellm_provider`. There is no 1h × long-context key: that rate is derived by stacking.
 */
import { z } from 'zod';
import { usdPerTokenToPicoPerToken } from './money.js';
import { issuePath } from './price-candidate.js';
import type { CandidatesResult, PriceCandidate } from './price-candidate.js';
import type { LongContextDraft, RatesDraft } from './price-table.js';

const perToken = z.number().nonnegative().finite().nullable().optional();

const EntrySchema = z.looseObject({
  input_cost_per_token: perToken,
  output_cost_per_token: perToken,
  cache_read_input_token_cost: perToken,
  cache_creation_input_token_cost: perToken,
  cache_creation_input_token_cost_above_1hr: perToken,
  max_input_tokens: z.number().nonnegative().nullable().optional(),
  max_output_tokens: z.number().nonnegative().nullable().optional(),
  litellm_provider: z.string().optional(),
  mode: z.string().optional(),
});

/** Modes that are not token-priced chat/completion models. */
const SKIPPED_MODES = new Set([
  'embedding',
  'image_generation',
  'audio_transcription',
  'audio_speech',
  'moderation',
  'rerank',
  'video_generation',
]);

const TIERED_KEY =
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens$/;

/** Whether parsed JSON looks like a LiteLLM price map (entries carrying per-token costs or a provider). */
export function looksLikeLiteLLM(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  return Object.values(json).some(
    (entry: unknown) =>
      typeof entry === 'object' && entry !== null && ('input_cost_per_token' in entry || 'litellm_provider' in entry),
  );
}

function pico(value: number | null | undefined): number | null | undefined {
  return value === undefined || value === null ? value : usdPerTokenToPicoPerToken(value);
}

function positiveOrNull(value: number | null | undefined): number | null {
  return value === undefined || value === null || value <= 0 ? null : Math.round(value);
}

/** The lowest `_above_<N>k_tokens` tier of an entry, with its explicit rates (missing ones stay to be derived). */
function longContextOf(key: string, raw: Record<string, unknown>, base: RatesDraft): LongContextDraft | null | string {
  const byThreshold = new Map<number, Record<string, number>>();
  for (const [field, value] of Object.entries(raw)) {
    const match = TIERED_KEY.exec(field);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    if (value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      return `${key}.${field}: expected a non-negative number`;
    const threshold = Number(match[2]) * 1000;
    const rates = byThreshold.get(threshold) ?? {};
    rates[match[1]] = value;
    byThreshold.set(threshold, rates);
  }
  const thresholds = [...byThreshold.keys()].sort((a, b) => a - b);
  const threshold = thresholds[0];
  if (threshold === undefined) return null;
  const tier = byThreshold.get(threshold) ?? {};
  const input = tier['input_cost_per_token'];
  const output = tier['output_cost_per_token'];
  return {
    kind: 'rates',
    thresholdTokens: threshold,
    rates: {
      input: input === undefined ? base.input : usdPerTokenToPicoPerToken(input),
      output: output === undefined ? base.output : usdPerTokenToPicoPerToken(output),
      cacheRead: pico(tier['cache_read_input_token_cost']),
      cacheWrite5m: pico(tier['cache_creation_input_token_cost']),
    },
  };
}

/** Candidates from a LiteLLM price map; `sample_spec`, non-chat modes and entries without both prices are skipped. */
export function parseLiteLLM(json: unknown, sourceLabel: string): CandidatesResult {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { kind: 'invalid', reason: 'expected a JSON object' };
  const candidates: PriceCandidate[] = [];
  for (const [key, raw] of Object.entries(json)) {
    if (key === 'sample_spec') continue;
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        kind: 'invalid',
        reason: issue === undefined ? `${key}: invalid entry` : `${issuePath([key, ...issue.path])}: ${issue.message}`,
      };
    }
    const entry = parsed.data;
    if (entry.mode !== undefined && SKIPPED_MODES.has(entry.mode)) continue;
    if (entry.input_cost_per_token === undefined || entry.input_cost_per_token === null) continue;
    if (entry.output_cost_per_token === undefined || entry.output_cost_per_token === null) continue;
    const rates: RatesDraft = {
      input: usdPerTokenToPicoPerToken(entry.input_cost_per_token),
      output: usdPerTokenToPicoPerToken(entry.output_cost_per_token),
      cacheRead: pico(entry.cache_read_input_token_cost),
      cacheWrite5m: pico(entry.cache_creation_input_token_cost),
      cacheWrite1h: pico(entry.cache_creation_input_token_cost_above_1hr),
    };
    const longContext = longContextOf(key, entry, rates);
    if (typeof longContext === 'string') return { kind: 'invalid', reason: longContext };
    candidates.push({
      key,
      provider: entry.litellm_provider ?? 'unknown',
      rates,
      longContext,
      contextWindowTokens: positiveOrNull(entry.max_input_tokens),
      maxOutputTokens: positiveOrNull(entry.max_output_tokens),
      source: `${sourceLabel} (LiteLLM price map)`,
    });
  }
  return { kind: 'ok', candidates };
}
