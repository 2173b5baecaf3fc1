/**
 * Which ingest issues are notes (`model.ts` `IssueEffectSchema`), apart from the schemas so that a
 * command that only counts issues (`sessions`, `report`) does not load zod.
 */
import type { IngestIssue, IssueEffect } from './model.js';

/** Effects that are notes rather than problems with the input. */
export const NOTE_EFFECTS: ReadonlySet<IssueEffect> = new Set([
  'usage-not-reported',
  'counted-elsewhere',
  'fork-replay',
  'unbilled-web-search',
]);

/** True for an issue that is a note (see `IssueEffectSchema`), not a problem with the input. */
export function isIngestNote(issue: IngestIssue): boolean {
  return issue.effect !== undefined && NOTE_EFFECTS.has(issue.effect);
}
