/**
 * A SWE-agent `.traj` → its totals (formats.md §5): `info.model_stats` holds `tokens_sent`,
 * `tokens_received` and `api_calls` per instance, with no cache fields and no per-call usage.
 */
import { errorMessage } from '../../session/errors.js';
import type { z } from 'zod';
import type { SessionSchema } from '../../session/model.js';
import { parseJsonDocument } from '../json-line.js';
import { asObject, asString } from '../json-value.js';
import { describeValue, MAX_TOKENS_PER_REQUEST, USAGE_INVALID } from '../token-count.js';

type SessionTotals = NonNullable<z.infer<typeof SessionSchema>['totalsOnly']>;

export type TrajectoryReading =
  | {
      readonly kind: 'totals';
      readonly totals: SessionTotals;
      readonly exitStatus: string | null;
      readonly problems: readonly string[];
    }
  | { readonly kind: 'invalid'; readonly reason: string };

/** More calls than any one agent run makes; keeps calls × MAX_TOKENS_PER_REQUEST far inside 2^53. */
const MAX_API_CALLS = 10_000_000;

function count(name: string, value: unknown, bound: number, problems: string[]): number {
  if (value === undefined) {
    problems.push(`info.model_stats.${name} missing; taken as 0`);
    return 0;
  }
  // These are sums over the run's calls: a safe integer within calls × the per-request bound.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > bound) {
    problems.push(
      `${USAGE_INVALID}: info.model_stats.${name} is not a plausible count (${describeValue(value)}); taken as 0`,
    );
    return 0;
  }
  return value;
}

/** Reads the totals of one trajectory's JSON text; never throws. */
export function parseTrajectory(text: string): TrajectoryReading {
  let value: unknown;
  try {
    value = parseJsonDocument(text);
  } catch (error) {
    return { kind: 'invalid', reason: `malformed JSON (${errorMessage(error)})` };
  }
  const info = asObject(asObject(value)?.['info']);
  if (info === undefined) return { kind: 'invalid', reason: 'missing field "info"' };
  const stats = asObject(info['model_stats']);
  if (stats === undefined) return { kind: 'invalid', reason: 'missing field "info.model_stats"' };
  const problems: string[] = [];
  const requests = count('api_calls', stats['api_calls'], MAX_API_CALLS, problems);
  const tokenBound = MAX_TOKENS_PER_REQUEST * Math.max(1, requests);
  const totals = {
    promptTokens: count('tokens_sent', stats['tokens_sent'], tokenBound, problems),
    outputTokens: count('tokens_received', stats['tokens_received'], tokenBound, problems),
    requests,
  };
  return { kind: 'totals', totals, exitStatus: asString(info['exit_status']) ?? null, problems };
}
