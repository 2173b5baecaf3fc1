/**
 * One discovered session, loaded and swept: the unit of work a sweep worker does. Each session is
 * parsed once, by the worker that replays it, and only its totals travel back.
 */
import type { PriceTable } from '../cost/price-table.js';
import type { SessionSource } from '../ingest/index.js';
import { loadSession } from '../ingest/index.js';
import type { IngestIssue } from '../session/model.js';
import type { Scenario } from '../simulate/scenario.js';
import type { SessionSweep } from './sweep-session.js';
import { sweepSession } from './sweep-session.js';

/** What every worker is given once: the sweep's scenarios and prices. */
export type SweepConfig = {
  readonly scenarios: readonly Scenario[];
  readonly prices: PriceTable;
  readonly reuseEquivalent: boolean;
};

export type SourceSweep = {
  readonly sweep: SessionSweep;
  /** The session's ingest issues, reported with the discovery's. */
  readonly issues: readonly IngestIssue[];
};

/** Loads `source` with its content (the summarizer reads it) and sweeps it. */
export async function sweepSource(
  source: SessionSource,
  config: SweepConfig,
  onScenario?: (replayedRows: number) => void,
): Promise<SourceSweep> {
  const session = await loadSession(source, { content: 'text' });
  const sweep = sweepSession(session, config.scenarios, {
    prices: config.prices,
    reuseEquivalent: config.reuseEquivalent,
    ...(onScenario === undefined ? {} : { onScenario }),
  });
  return { sweep, issues: session.issues };
}
