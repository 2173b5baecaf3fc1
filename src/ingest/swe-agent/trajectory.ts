/**
 * A SWE-agent `.traj` → its totals (formats.md §5): `info.model_stats` holds `tokens_sent`,
 * `tokens_received` and `api_calls` per instance, with no cache fields and no per-call usage.
 */
import { errorMessage } from '../../session/errors.js';
import type { z } from 'zod';
import type { SessionSchema } from '../../session/model.js';
import { asObject, asString } from '../json-value.js';

type SessionTotals = NonNullable<z.infer<typeof SessionSchema>['totalsOnly']>;

export type TrajectoryReading =
  | { readonly kind: 'totals'; readonly totals: SessionTotals; readonly exitStatus: string | null; readonly problems: readonly string[] }
  | { readonly kind: 'invalid'; readonly reason: string };

function count(name: string, value: unknown, problems: string[]): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  problems.push(value === undefined ? `info.model_stats.${name} missing; taken as 0` : `info.model_stats.${name} is not a count (${JSON.stringify(value)}); taken as 0`);
  return 0;
}

/** Reads the totals of one trajectory's JSON text; never throws. */
export function parseTrajectory(text: string): TrajectoryReading {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', reason: `malformed JSON (${errorMessage(error)})` };
  }
  const info = asObject(asObject(value)?.['info']);
  if (info === undefined) return { kind: 'invalid', reason: 'missing field "info"' };
  const stats = asObject(info['model_stats']);
  if (stats === undefined) return { kind: 'invalid', reason: 'missing field "info.model_stats"' };
  const problems: string[] = [];
  const totals = {
    promptTokens: count('tokens_sent', stats['tokens_sent'], problems),
    outputTokens: count('tokens_received', stats['tokens_received'], problems),
    requests: count('api_calls', stats['api_calls'], problems),
  };
  return { kind: 'totals', totals, exitStatus: asString(info['exit_status']) ?? null, problems };
}
