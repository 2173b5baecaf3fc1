/**
 * What the HTML drill-down shows beyond the simulate report: each session's requests, per scenario,
 * as the cost tables hold them (prompt split into cache read / cache write / uncached, context
 * size, compaction and overflow markers, failed turns) and each scenario's cost by class, summed
 * in SQL. Read back from the cost database after the run; the flags come from the detectors.
 */
import type { CostDb } from '../cost/db.js';
import { boolOf, intOf, picoOrNull, stringOrNull } from '../cost/duck-values.js';
import { formatPicoUsd } from '../cost/money.js';
import type { FlagJson } from './flag-json.js';

/** One request of a scenario's timeline. */
export type TimelinePoint = {
  readonly index: number;
  readonly kind: 'request' | 'summarize' | 'rejected_overflow';
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly uncachedInputTokens: number;
  /** Context held after the request (prompt + output). */
  readonly contextTokens: number;
  /** A compaction ran just before this request. */
  readonly compactionBefore: boolean;
  /** A rejected overflow whose turn never got a priced request (the turn failed). */
  readonly failed: boolean;
};

/** Exact decimal USD per cost class (null = unpriced). */
export type CostByClass = {
  readonly uncachedInput: string | null;
  readonly cacheRead: string | null;
  readonly cacheWrite: string | null;
  readonly output: string | null;
};

export type ScenarioDetail = {
  readonly scenario: string;
  /** Every request in order; the chart downsamples, the page says so. */
  readonly points: readonly TimelinePoint[];
  readonly costByClass: CostByClass;
};

export type SessionDetail = {
  readonly sessionId: string;
  readonly project: string | null;
  readonly startedAtMs: number | null;
  readonly scenarios: readonly ScenarioDetail[];
  readonly flags: readonly FlagJson[];
};

/** What the pipeline knows of a session from its log. */
export type SessionMeta = {
  readonly sessionId: string;
  readonly project: string | null;
  readonly startedAtMs: number | null;
};

const TIMELINE_SQL = `
SELECT session_id, scenario, request_index, kind,
       cache_read_tokens, cache_write_5m_tokens + cache_write_1h_tokens AS cache_write_tokens,
       uncached_input_tokens, context_tokens_after, compaction_before
FROM request_costs
WHERE scenario <> 'measured'
ORDER BY session_id, scenario, request_index, seq`;

const CLASSES_SQL = `
SELECT session_id, scenario,
       sum(cost_input_pusd) AS uncached_input, sum(cost_cache_read_pusd) AS cache_read,
       sum(cost_cache_write_5m_pusd + cost_cache_write_1h_pusd) AS cache_write, sum(cost_output_pusd) AS output
FROM request_costs
WHERE scenario <> 'measured'
GROUP BY session_id, scenario`;

function usd(pico: bigint | null): string | null {
  return pico === null ? null : formatPicoUsd(pico);
}

/** Reads every session's timelines and class costs; `flags` and `meta` are keyed by session id. */
export async function readSessionDetails(
  db: CostDb,
  meta: readonly SessionMeta[],
  flags: ReadonlyMap<string, readonly FlagJson[]>,
): Promise<SessionDetail[]> {
  const key = (session: string, scenario: string) => `${session}\u0000${scenario}`;
  const raw = new Map<
    string,
    {
      index: number;
      kind: TimelinePoint['kind'];
      read: number;
      write: number;
      uncached: number;
      context: number;
      compaction: boolean;
    }[]
  >();
  for (const row of await db.query(TIMELINE_SQL)) {
    const k = key(stringOrNull(row, 'session_id') ?? '', stringOrNull(row, 'scenario') ?? '');
    const list = raw.get(k) ?? [];
    list.push({
      index: intOf(row, 'request_index'),
      kind: (stringOrNull(row, 'kind') ?? 'request') as TimelinePoint['kind'],
      read: intOf(row, 'cache_read_tokens'),
      write: intOf(row, 'cache_write_tokens'),
      uncached: intOf(row, 'uncached_input_tokens'),
      context: intOf(row, 'context_tokens_after'),
      compaction: boolOf(row, 'compaction_before'),
    });
    raw.set(k, list);
  }
  const classes = new Map<string, CostByClass>();
  for (const row of await db.query(CLASSES_SQL)) {
    classes.set(key(stringOrNull(row, 'session_id') ?? '', stringOrNull(row, 'scenario') ?? ''), {
      uncachedInput: usd(picoOrNull(row, 'uncached_input')),
      cacheRead: usd(picoOrNull(row, 'cache_read')),
      cacheWrite: usd(picoOrNull(row, 'cache_write')),
      output: usd(picoOrNull(row, 'output')),
    });
  }
  const scenariosOf = new Map<string, string[]>();
  for (const k of raw.keys()) {
    const [session = '', scenario = ''] = k.split('\u0000');
    scenariosOf.set(session, [...(scenariosOf.get(session) ?? []), scenario]);
  }
  return meta.map((m) => ({
    ...m,
    flags: flags.get(m.sessionId) ?? [],
    scenarios: (scenariosOf.get(m.sessionId) ?? []).map((scenario) => {
      const rows = raw.get(key(m.sessionId, scenario)) ?? [];
      // A rejected overflow fails its turn when no priced request of that index follows.
      const priced = new Set(rows.filter((r) => r.kind === 'request').map((r) => r.index));
      return {
        scenario,
        points: rows.map((r) => ({
          index: r.index,
          kind: r.kind,
          cacheReadTokens: r.read,
          cacheWriteTokens: r.write,
          uncachedInputTokens: r.uncached,
          contextTokens: r.context,
          compactionBefore: r.compaction,
          failed: r.kind === 'rejected_overflow' && !priced.has(r.index),
        })),
        costByClass: classes.get(key(m.sessionId, scenario)) ?? {
          uncachedInput: null,
          cacheRead: null,
          cacheWrite: null,
          output: null,
        },
      };
    }),
  }));
}
