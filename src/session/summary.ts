/**
 * One row per session for `cachecost sessions` (README "cachecost sessions"): counts and measured token totals read
 * straight from the normalized session, no simulation. Token totals are sums of measured usage;
 * they are null when no request of the session has measured usage (unknown, not zero).
 */
import { isIngestNote } from './ingest-note.js';
import type { Session, SourceFormat } from './model.js';

export type SessionSummary = {
  readonly sessionId: string;
  readonly source: SourceFormat;
  /** Distinct request models, in order of first use. */
  readonly models: readonly string[];
  /** Real user prompts (`synthetic === null`). */
  readonly userMessages: number;
  /** Provider requests with measured usage, side traffic (`agentId` set) included: every one is billed. */
  readonly requests: number;
  /**
   * Requests whose log reports no usage (none, or every count 0: an unfinished stream, an endpoint
   * that logs none). Counted apart from `requests`, never priced, never in the token totals.
   */
  readonly requestsWithoutUsage: number;
  /** Σ inclusive measured input tokens (uncached + cache read + cache write). */
  readonly promptTokens: number | null;
  readonly cacheReadTokens: number | null;
  readonly cacheWriteTokens: number | null;
  readonly outputTokens: number | null;
  /** Largest measured prompt of the main agent: the peak window occupancy. */
  readonly peakContextTokens: number | null;
  readonly compactions: number;
  readonly overflows: number;
  /** Ingest issues attributed to the session's files (notes, such as requests without usage, are not issues). */
  readonly issues: number;
};

/** Summarizes one session (see `SessionSummary` for each field's meaning). */
export function summarizeSession(session: Session): SessionSummary {
  const models: string[] = [];
  let measured = 0;
  let promptTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let outputTokens = 0;
  let peakContextTokens: number | null = null;
  for (const request of session.requests) {
    if (!models.includes(request.model)) models.push(request.model);
    const usage = request.usage;
    if (usage === null) continue;
    measured += 1;
    promptTokens += usage.promptTokens;
    cacheReadTokens += usage.cacheReadTokens;
    cacheWriteTokens += usage.cacheWriteTokens;
    outputTokens += usage.outputTokens;
    if (request.agentId === null) peakContextTokens = Math.max(peakContextTokens ?? 0, usage.promptTokens);
  }
  let userMessages = 0;
  for (const item of session.items) if (item.kind === 'user' && item.synthetic === null) userMessages += 1;
  let compactions = 0;
  let overflows = 0;
  for (const event of session.events) {
    if (event.kind === 'compaction') compactions += 1;
    else if (event.kind === 'overflow') overflows += 1;
  }

  const totals = session.totalsOnly;
  const hasMeasured = measured > 0;
  return {
    sessionId: session.id,
    source: session.source,
    models,
    userMessages,
    requests: totals?.requests ?? measured,
    requestsWithoutUsage: totals === null ? session.requests.length - measured : 0,
    promptTokens: totals?.promptTokens ?? (hasMeasured ? promptTokens : null),
    cacheReadTokens: hasMeasured ? cacheReadTokens : null,
    cacheWriteTokens: hasMeasured ? cacheWriteTokens : null,
    outputTokens: totals?.outputTokens ?? (hasMeasured ? outputTokens : null),
    peakContextTokens,
    compactions,
    overflows,
    issues: session.issues.filter((issue) => !isIngestNote(issue)).length,
  };
}
