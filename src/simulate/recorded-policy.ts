/**
 * The pruning the agent actually ran (replay.md §3: `recorded` reproduces the policy "as closely
 * as the log allows"). FreeCode changed policy on 2026-08-05 (engine.md §11: the sliding
 * 1,000-char truncation and the time-based microcompact were replaced by the prefix-stable
 * PruneState) and its engine again after the 08-22 "Aug" commit; logs carry no version field.
 * The candidates a session's date allows are replayed, and the one whose prompts match the
 * measured prompts best is taken; without measurements the date decides.
 */
import type { Session } from '../session/model.js';
import type { RecordedPolicy } from './replay.js';

/** 2026-08-05, when prefix-stable pruning replaced the sliding truncation (engine.md §11). */
export const PREFIX_STABLE_SINCE_MS = Date.UTC(2026, 7, 5);
/** After the Aug commit of 2026-08-22 the newest engine behaviour applies (engine.md §0, §11). */
export const NEWEST_ENGINE_SINCE_MS = Date.UTC(2026, 7, 23);

export const SLIDING_LEGACY_POLICY: RecordedPolicy = {
  pruning: { kind: 'sliding-legacy', keepRecentResponses: 2, capChars: 1_000 },
  legacyMicrocompact: true,
  version: 'aug',
  basis: 'FreeCode before 2026-08-05: sliding 1,000-char truncation and time-based microcompact',
};

export const PREFIX_STABLE_AUG_POLICY: RecordedPolicy = {
  pruning: { kind: 'prefix-stable' },
  legacyMicrocompact: false,
  version: 'aug',
  basis: 'FreeCode 2026-08-05 … 08-22: prefix-stable pruning, Aug engine',
};

export const PREFIX_STABLE_NEWEST_POLICY: RecordedPolicy = {
  pruning: { kind: 'prefix-stable' },
  legacyMicrocompact: false,
  version: 'newest',
  basis: 'FreeCode newest: prefix-stable pruning',
};

export const NO_PRUNING_POLICY: RecordedPolicy = {
  pruning: { kind: 'none' },
  legacyMicrocompact: false,
  version: 'newest',
  basis: 'the log shows no pruning of tool results',
};

/** The first timestamp of a session, from its requests or its items. */
export function sessionStartMs(session: Session): number | null {
  for (const request of session.requests) if (request.timestampMs !== null) return request.timestampMs;
  for (const item of session.items) if (item.timestampMs !== null) return item.timestampMs;
  return null;
}

/**
 * The policies worth trying for a session, the one its date suggests first (engine.md §11); for
 * FreeCode every generation is a candidate because a log carries no version and clocks lie.
 * Other agents' logs show no pruning of tool results: none.
 */
export function recordedPolicyCandidates(session: Session): RecordedPolicy[] {
  if (session.source !== 'freecode') return [NO_PRUNING_POLICY];
  const all = [PREFIX_STABLE_NEWEST_POLICY, PREFIX_STABLE_AUG_POLICY, SLIDING_LEGACY_POLICY];
  const startMs = sessionStartMs(session);
  if (startMs === null) return all;
  const byDate =
    startMs < PREFIX_STABLE_SINCE_MS
      ? SLIDING_LEGACY_POLICY
      : startMs < NEWEST_ENGINE_SINCE_MS
        ? PREFIX_STABLE_AUG_POLICY
        : PREFIX_STABLE_NEWEST_POLICY;
  return [byDate, ...all.filter((policy) => policy !== byDate)];
}
