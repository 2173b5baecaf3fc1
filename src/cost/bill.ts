/**
 * The bill (replay.md §3, the recorded cost): the log's measured usage, priced by the same SQL as every scenario
 * (`request_costs`), grouped by day, session, model or project. The `measured` request rows go
 * into `requests` as usual; the facts they have no column for (a session's project, writes whose
 * TTL the log did not give) go into the side tables of `sql/bill_schema.sql`. Every amount is
 * computed in SQL (`sql/bill_requests.sql`, `sql/bill_report.sql`); this module only moves rows.
 */
import type { CacheClassTokens } from '../session/cache-class-tokens.js';
import type { CostDb } from './db.js';
import { readSqlFile } from './db.js';
import type { DuckRow } from './duck-values.js';
import { boolOf, doubleOrNull, intOf, intOrNull, picoOrNull, stringListOf, stringOrNull } from './duck-values.js';
import { picoUsdToUsd } from './money.js';
import type { Money } from './reports.js';
import type { BillGrouping } from './bill-groupings.js';

export { BILL_GROUPINGS, type BillGrouping } from './bill-groupings.js';

/** A session's project and machine for the `project` and `host` groupings. */
export type BillSessionRow = {
  readonly session_id: string;
  readonly project: string | null;
  readonly host: string | null;
};

/** Cache-write tokens of one measured request whose TTL the log did not give (> 0). */
export type UnknownTtlRow = {
  readonly session_id: string;
  readonly request_index: number;
  readonly write_unknown_ttl_tokens: number;
};

/** The window a bill covers: `[sinceMs, untilMs)` in UTC epoch ms, null = unbounded. */
export type BillWindow = { readonly sinceMs: number | null; readonly untilMs: number | null };

/** A measured request that is sub-agent traffic of its session (`Request.agentId` non-null). */
export type SubagentRow = { readonly session_id: string; readonly request_index: number };

/**
 * How the bill is cut: the IANA time zone of its days, whether each group lists its models, and
 * whether `bill_subagent` was filled (false for exports written before `requests.agent_id` existed:
 * the sub-agent figures are then null, never 0).
 */
export type BillOptions = { readonly timeZone: string; readonly breakdown: boolean; readonly subagentsKnown: boolean };

export const UTC_BILL: BillOptions = { timeZone: 'UTC', breakdown: false, subagentsKnown: true };

/**
 * One group of the bill (or the total). Tokens are exact integers by cache class (`promptTokens`
 * inclusive: uncached + read + every write), money exact pico-dollars.
 */
export type BillLine = CacheClassTokens & {
  /** Day (`YYYY-MM-DD`), session id, model as logged, project or host; null = no date / no project (or the total). */
  readonly key: string | null;
  readonly requests: number;
  readonly sessions: number;
  readonly models: readonly string[];
  readonly firstTimestampMs: number | null;
  readonly lastTimestampMs: number | null;
  /** Writes without a 5m/1h split in the log, priced at the 5m rate. */
  readonly cacheWriteUnknownTtlTokens: number;
  /** Requests priced at a long-context tier (the whole request, pricing.md §2 rec. 4). */
  readonly longContextRequests: number;
  /** Requests left out of the cost (unknown model, no price at that date, or no rate for a used class). */
  readonly unpricedRequests: number;
  /** Prompt + output tokens of the unpriced requests. */
  readonly unpricedTokens: number;
  /** Cache read / prompt, in percent; null when there is no prompt. */
  readonly cacheHitRatePct: number | null;
  readonly inputCost: Money;
  readonly cacheReadCost: Money;
  readonly cacheWrite5mCost: Money;
  readonly cacheWrite1hCost: Money;
  readonly cacheWriteUnknownTtlCost: Money;
  readonly outputCost: Money;
  /** Sum over the priced requests; null when none is priced; incomplete when `unpricedRequests > 0`. */
  readonly cost: Money;
  /** Requests of sub-agents attributed to the group's sessions; null = not known (exports). */
  readonly subagentRequests: number | null;
  /** The unpriced ones among them; null = not known. */
  readonly subagentUnpricedRequests: number | null;
  /** Their cost, priced like `cost` (0 without sub-agent requests, null when none is priced or not known). */
  readonly subagentCost: Money;
  /** The cost of the other requests (the sessions without their sub-agents), same rules; null when not known. */
  readonly ownCost: Money;
  /** With `breakdown`: the group's lines per model, most expensive first (empty otherwise). */
  readonly breakdown: readonly BillLine[];
};

export type BillTable = { readonly lines: readonly BillLine[]; readonly total: BillLine };

/** A model that left requests of the bill unpriced. */
export type BillUnpricedModel = { readonly model: string; readonly requests: number; readonly tokens: number };

/** Creates the bill's side tables, its view and its report macros on an open cost database. */
export async function openBill(db: CostDb): Promise<void> {
  for (const name of ['bill_schema', 'bill_requests', 'bill_report', 'bill_unpriced'])
    await db.query(await readSqlFile(name));
}

function sqlString(value: string | null): string {
  return value === null ? 'NULL' : `'${value.replaceAll("'", "''")}'`;
}

function sqlInteger(value: number | null): string {
  if (value === null) return 'NULL';
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  return String(value);
}

/** Records each session's project (through an appender: names come from user files, never SQL text). */
export async function insertBillSessions(db: CostDb, rows: readonly BillSessionRow[]): Promise<void> {
  await db.appendTuples(
    'bill_sessions',
    ['varchar', 'varchar', 'varchar'],
    rows.map((row) => [row.session_id, row.project, row.host]),
  );
}

/** Records which measured requests are sub-agent traffic (only those have a row). */
export async function insertSubagents(db: CostDb, rows: readonly SubagentRow[]): Promise<void> {
  await db.appendTuples(
    'bill_subagent',
    ['varchar', 'integer'],
    rows.map((row) => [row.session_id, row.request_index]),
  );
}

/** Records the unknown-TTL writes of measured requests; rows with 0 tokens are not stored. */
export async function insertUnknownTtl(db: CostDb, rows: readonly UnknownTtlRow[]): Promise<void> {
  const tuples = rows
    .filter((row) => row.write_unknown_ttl_tokens > 0)
    .map((row) => [row.session_id, row.request_index, row.write_unknown_ttl_tokens]);
  await db.appendTuples('bill_unknown_ttl', ['varchar', 'integer', 'bigint'], tuples);
}

function moneyOf(row: DuckRow, column: string): Money {
  const picoUsd = picoOrNull(row, column);
  return picoUsd === null ? null : { picoUsd, usd: picoUsdToUsd(picoUsd) };
}

function lineOf(row: DuckRow, subagentsKnown: boolean): BillLine {
  return {
    key: stringOrNull(row, 'group_key'),
    requests: intOf(row, 'requests'),
    sessions: intOf(row, 'sessions'),
    models: row['models'] === null ? [] : stringListOf(row, 'models'),
    firstTimestampMs: intOrNull(row, 'first_timestamp_ms'),
    lastTimestampMs: intOrNull(row, 'last_timestamp_ms'),
    promptTokens: intOf(row, 'prompt_tokens'),
    uncachedInputTokens: intOf(row, 'uncached_input_tokens'),
    cacheReadTokens: intOf(row, 'cache_read_tokens'),
    cacheWrite5mTokens: intOf(row, 'cache_write_5m_tokens'),
    cacheWrite1hTokens: intOf(row, 'cache_write_1h_tokens'),
    cacheWriteUnknownTtlTokens: intOf(row, 'cache_write_unknown_ttl_tokens'),
    outputTokens: intOf(row, 'output_tokens'),
    longContextRequests: intOf(row, 'long_context_requests'),
    unpricedRequests: intOf(row, 'unpriced_requests'),
    unpricedTokens: intOf(row, 'unpriced_tokens'),
    cacheHitRatePct: doubleOrNull(row, 'cache_hit_rate_pct'),
    inputCost: moneyOf(row, 'cost_input_pusd'),
    cacheReadCost: moneyOf(row, 'cost_cache_read_pusd'),
    cacheWrite5mCost: moneyOf(row, 'cost_cache_write_5m_pusd'),
    cacheWrite1hCost: moneyOf(row, 'cost_cache_write_1h_pusd'),
    cacheWriteUnknownTtlCost: moneyOf(row, 'cost_cache_write_unknown_ttl_pusd'),
    outputCost: moneyOf(row, 'cost_output_pusd'),
    cost: moneyOf(row, 'cost_pusd'),
    subagentRequests: subagentsKnown ? intOf(row, 'subagent_requests') : null,
    subagentUnpricedRequests: subagentsKnown ? intOf(row, 'subagent_unpriced_requests') : null,
    subagentCost: subagentsKnown ? moneyOf(row, 'subagent_cost_pusd') : null,
    ownCost: subagentsKnown ? moneyOf(row, 'own_cost_pusd') : null,
    breakdown: [],
  };
}

/** Sets the time zone of the bill's days (an IANA name, validated by the caller; quoted here). */
async function setTimeZone(db: CostDb, timeZone: string): Promise<void> {
  await db.query(`SET VARIABLE bill_timezone = ${sqlString(timeZone)}`);
}

/** The bill grouped by `by` within `window`, with its total row (`sql/bill_report.sql`). */
export async function billTable(
  db: CostDb,
  by: BillGrouping,
  window: BillWindow,
  options: BillOptions = UTC_BILL,
): Promise<BillTable> {
  await setTimeZone(db, options.timeZone);
  // `by` is one of six literals, the bounds are integers, the zone a quoted literal.
  const rows = await db.query(
    `SELECT * FROM bill_report(${sqlString(by)}, ${options.breakdown}, ${sqlInteger(window.sinceMs)}::BIGINT, ${sqlInteger(window.untilMs)}::BIGINT)`,
  );
  const lines: BillLine[] = [];
  const models = new Map<string | null, BillLine[]>();
  let total: BillLine | null = null;
  for (const row of rows) {
    const known = options.subagentsKnown;
    if (boolOf(row, 'is_total')) total = lineOf(row, known);
    else if (boolOf(row, 'is_breakdown')) {
      const line = { ...lineOf(row, known), key: stringOrNull(row, 'breakdown_model') };
      const groupKey = stringOrNull(row, 'group_key');
      models.set(groupKey, [...(models.get(groupKey) ?? []), line]);
    } else lines.push(lineOf(row, known));
  }
  if (total === null) throw new Error('bill_report returned no total row');
  return { lines: lines.map((line) => ({ ...line, breakdown: models.get(line.key) ?? [] })), total };
}

/** Models that left requests in `window` unpriced, most requests first (`sql/bill_unpriced.sql`). */
export async function billUnpricedModels(db: CostDb, window: BillWindow): Promise<BillUnpricedModel[]> {
  // The window is in epoch ms: the time zone does not matter here.
  const rows = await db.query(
    `SELECT * FROM bill_unpriced(${sqlInteger(window.sinceMs)}::BIGINT, ${sqlInteger(window.untilMs)}::BIGINT)`,
  );
  return rows.map((row) => ({
    model: stringOrNull(row, 'model') ?? '',
    requests: intOf(row, 'requests'),
    tokens: intOf(row, 'tokens'),
  }));
}
