/**
 * The bill computed in TypeScript, for `report` without `--db`: the same table as
 * `sql/bill_requests.sql` + `sql/bill_report.sql` + `sql/bill_unpriced.sql` (every line, every
 * column, the same order), from the same measured requests, priced by the TypeScript reference
 * (`priceRequest`, held equal to `request_costs.sql` by test/cost/differential.test.ts). Loading
 * DuckDB, its schema and every request row cost more than parsing the logs on a common bill, so
 * the SQL path is kept for what needs the database (a `--db` run, `--from` exports) and
 * test/cost/bill-aggregate.test.ts holds both equal to the pico-dollar on random sessions, for
 * every grouping, time zone, window, breakdown and sub-agent split.
 *
 * Memory is bounded by the number of groups, never by the number of requests: rows are folded in
 * as they come (a 1 GB log is never held).
 */
import type { BillGrouping } from './bill-groupings.js';
import type { BillLine, BillTable, BillUnpricedModel, BillWindow } from './bill.js';
import { picoUsdToUsd } from './money.js';
import { resolveModelName } from './model-resolution.js';
import { priceRequest } from './price-request.js';
import type { RequestCost } from './price-request.js';
import { priceAt } from './price-table.js';
import type { ModelPrice, PriceTable } from './price-table.js';
import type { Money } from './reports.js';

/**
 * One measured request of the bill: the `measured` row (`simulate/to-rows.ts` `measuredRows`:
 * `cacheWrite5mTokens` holds every write that is not a known 1h write) and the facts the SQL reads
 * from the side tables (the session's project and host, the unknown-TTL share of the 5m column,
 * whether it is sub-agent traffic).
 */
export type BillRequest = {
  readonly sessionId: string;
  readonly project: string | null;
  readonly host: string | null;
  readonly model: string;
  readonly timestampMs: number | null;
  readonly subagent: boolean;
  readonly promptTokens: number;
  readonly uncachedInputTokens: number;
  readonly cacheReadTokens: number;
  /** Known 5m writes and writes of unknown TTL (both bill at the 5m rate). */
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
  /** The part of `cacheWrite5mTokens` whose TTL the log did not give (0 when none). */
  readonly unknownTtlTokens: number;
};

export type BillAggregateOptions = {
  readonly by: BillGrouping;
  readonly window: BillWindow;
  readonly timeZone: string;
  readonly breakdown: boolean;
};

/** A running group of the bill (the columns of `bill_report`'s `grouped`). */
type Group = {
  readonly key: string | null;
  requests: number;
  readonly sessions: Set<string>;
  readonly models: Set<string>;
  first: number | null;
  last: number | null;
  prompt: number;
  uncached: number;
  read: number;
  write5m: number;
  write1h: number;
  writeUnknown: number;
  output: number;
  longContext: number;
  unpriced: number;
  unpricedTokens: number;
  costInput: bigint | null;
  costRead: bigint | null;
  costWrite5m: bigint | null;
  costWrite1h: bigint | null;
  costWriteUnknown: bigint | null;
  costOutput: bigint | null;
  cost: bigint | null;
  subagentRequests: number;
  subagentUnpriced: number;
  subagentCost: bigint | null;
  ownRequests: number;
  ownCost: bigint | null;
};

function newGroup(key: string | null): Group {
  return {
    key,
    requests: 0,
    sessions: new Set(),
    models: new Set(),
    first: null,
    last: null,
    prompt: 0,
    uncached: 0,
    read: 0,
    write5m: 0,
    write1h: 0,
    writeUnknown: 0,
    output: 0,
    longContext: 0,
    unpriced: 0,
    unpricedTokens: 0,
    costInput: null,
    costRead: null,
    costWrite5m: null,
    costWrite1h: null,
    costWriteUnknown: null,
    costOutput: null,
    cost: null,
    subagentRequests: 0,
    subagentUnpriced: 0,
    subagentCost: null,
    ownRequests: 0,
    ownCost: null,
  };
}

/** SQL's `sum`: NULL until a non-NULL value is added. */
function plus(sum: bigint | null, value: bigint): bigint {
  return sum === null ? value : sum + value;
}

/**
 * Adds a request to a group; `cost` null = unpriced; `writeUnknown` = the unknown-TTL share of its
 * 5m cost (split out of that column, as in bill_requests.sql).
 */
function addTo(group: Group, row: BillRequest, cost: RequestCost | null, writeUnknown: bigint): void {
  group.requests += 1;
  group.sessions.add(row.sessionId);
  group.models.add(row.model);
  if (row.timestampMs !== null) {
    if (group.first === null || row.timestampMs < group.first) group.first = row.timestampMs;
    if (group.last === null || row.timestampMs > group.last) group.last = row.timestampMs;
  }
  group.prompt += row.promptTokens;
  group.uncached += row.uncachedInputTokens;
  group.read += row.cacheReadTokens;
  group.write5m += row.cacheWrite5mTokens - row.unknownTtlTokens;
  group.write1h += row.cacheWrite1hTokens;
  group.writeUnknown += row.unknownTtlTokens;
  group.output += row.outputTokens;
  if (row.subagent) group.subagentRequests += 1;
  else group.ownRequests += 1;
  if (cost === null) {
    group.unpriced += 1;
    group.unpricedTokens += row.promptTokens + row.outputTokens;
    if (row.subagent) group.subagentUnpriced += 1;
    // As bill_requests.sql: an unpriced request without unknown-TTL writes adds 0 (not NULL) to
    // that column, whose cost is then $0 for its 0 tokens rather than unpriced.
    if (row.unknownTtlTokens === 0) group.costWriteUnknown = plus(group.costWriteUnknown, 0n);
    return;
  }
  if (cost.longContext) group.longContext += 1;
  group.costInput = plus(group.costInput, cost.inputPicoUsd);
  group.costRead = plus(group.costRead, cost.cacheReadPicoUsd);
  group.costWrite5m = plus(group.costWrite5m, cost.cacheWrite5mPicoUsd - writeUnknown);
  group.costWrite1h = plus(group.costWrite1h, cost.cacheWrite1hPicoUsd);
  group.costWriteUnknown = plus(group.costWriteUnknown, writeUnknown);
  group.costOutput = plus(group.costOutput, cost.outputPicoUsd);
  group.cost = plus(group.cost, cost.totalPicoUsd);
  if (row.subagent) group.subagentCost = plus(group.subagentCost, cost.totalPicoUsd);
  else group.ownCost = plus(group.ownCost, cost.totalPicoUsd);
}

function money(picoUsd: bigint | null): Money {
  return picoUsd === null ? null : { picoUsd, usd: picoUsdToUsd(picoUsd) };
}

/** Strings in UTF-8 byte order (DuckDB's default binary collation), which is code point order. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i += 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function lineOf(group: Group, key: string | null): BillLine {
  return {
    key,
    requests: group.requests,
    sessions: group.sessions.size,
    models: [...group.models].sort(compareCodePoints),
    firstTimestampMs: group.first,
    lastTimestampMs: group.last,
    promptTokens: group.prompt,
    uncachedInputTokens: group.uncached,
    cacheReadTokens: group.read,
    cacheWrite5mTokens: group.write5m,
    cacheWrite1hTokens: group.write1h,
    cacheWriteUnknownTtlTokens: group.writeUnknown,
    outputTokens: group.output,
    longContextRequests: group.longContext,
    unpricedRequests: group.unpriced,
    unpricedTokens: group.unpricedTokens,
    // As `100.0 * cache_read_tokens / prompt_tokens` in SQL: an exact product, one double division.
    cacheHitRatePct: group.prompt === 0 ? null : (100 * group.read) / group.prompt,
    inputCost: money(group.costInput),
    cacheReadCost: money(group.costRead),
    cacheWrite5mCost: money(group.costWrite5m),
    cacheWrite1hCost: money(group.costWrite1h),
    cacheWriteUnknownTtlCost: money(group.costWriteUnknown),
    outputCost: money(group.costOutput),
    cost: money(group.cost),
    subagentRequests: group.subagentRequests,
    subagentUnpricedRequests: group.subagentUnpriced,
    // 0 without sub-agent requests, NULL when there are some and none is priced (as in SQL).
    subagentCost: money(group.subagentRequests === 0 ? 0n : group.subagentCost),
    ownCost: money(group.ownRequests === 0 ? 0n : group.ownCost),
    breakdown: [],
  };
}

/** `YYYY-MM-DD` of a UTC epoch-ms date. */
function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The date of an instant in an IANA zone, `YYYY-MM-DD` (DuckDB: `strftime(timezone(zone, ts), '%Y-%m-%d')`).
 * UTC directly; other zones through ICU (`Intl`), memoized per minute when the minute does not
 * straddle a date change there.
 */
function dayFormatter(timeZone: string): (ms: number) => string {
  if (timeZone === 'UTC') return isoDay;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const exact = (ms: number): string => {
    let year = '';
    let month = '';
    let day = '';
    for (const part of format.formatToParts(new Date(ms))) {
      if (part.type === 'year') year = part.value;
      else if (part.type === 'month') month = part.value;
      else if (part.type === 'day') day = part.value;
    }
    return `${year.padStart(4, '0')}-${month}-${day}`;
  };
  const byMinute = new Map<number, string | null>();
  return (ms) => {
    const minute = Math.floor(ms / 60_000);
    let known = byMinute.get(minute);
    if (known === undefined) {
      const start = exact(minute * 60_000);
      known = start === exact(minute * 60_000 + 59_999) ? start : null;
      byMinute.set(minute, known);
    }
    return known ?? exact(ms);
  };
}

/** The Monday of a `YYYY-MM-DD` date's ISO week (DuckDB `date_trunc('week', day)`). */
function weekOf(day: string): string {
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  const monday = new Date(ms - ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000);
  return `${String(monday.getUTCFullYear()).padStart(4, '0')}-${String(monday.getUTCMonth() + 1).padStart(2, '0')}-${String(monday.getUTCDate()).padStart(2, '0')}`;
}

/** Bigints in `cost_pusd DESC NULLS LAST` order. */
function costDesc(a: bigint | null, b: bigint | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a > b ? -1 : a < b ? 1 : 0;
}

function numberNullsLast(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

function stringNullsLast(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareCodePoints(a, b);
}

/**
 * `bill_report`'s ORDER BY for rows of one kind: periods by date, sessions by first request, then
 * cost (largest first), then the key. `key` is the group's key (the same for a group's breakdown
 * rows); `tieBreak` orders what SQL leaves in any order (a group's models of equal cost).
 */
function rowOrder(by: BillGrouping): (a: Group, b: Group) => number {
  const timeKey = by === 'day' || by === 'week' || by === 'month';
  return (a, b) =>
    (timeKey ? stringNullsLast(a.key, b.key) : 0) ||
    (by === 'session' ? numberNullsLast(a.first, b.first) : 0) ||
    costDesc(a.cost, b.cost) ||
    stringNullsLast(a.key, b.key);
}

/** Folds measured requests into the bill, one at a time; `table()` and `unpricedModels()` read it. */
export class BillAggregator {
  private readonly groups = new Map<string | null, Group>();
  /** Group key → model → the group's requests of that model (with `breakdown`). */
  private readonly perModel = new Map<string | null, Map<string, Group>>();
  private readonly total = newGroup(null);
  private readonly unpriced = new Map<string, { requests: number; tokens: number }>();
  private readonly dayOf: (ms: number) => string;
  private readonly resolved = new Map<string, string | null>();

  constructor(
    private readonly prices: PriceTable,
    private readonly options: BillAggregateOptions,
  ) {
    this.dayOf = dayFormatter(options.timeZone);
  }

  private priceOf(model: string, timestampMs: number | null): ModelPrice | null {
    let id = this.resolved.get(model);
    if (id === undefined) {
      id = resolveModelName(this.prices, model)?.id ?? null;
      this.resolved.set(model, id);
    }
    return id === null ? null : priceAt(this.prices, id, timestampMs);
  }

  private keyOf(row: BillRequest): string | null {
    switch (this.options.by) {
      case 'day':
        return row.timestampMs === null ? null : this.dayOf(row.timestampMs);
      case 'week':
        return row.timestampMs === null ? null : weekOf(this.dayOf(row.timestampMs));
      case 'month':
        return row.timestampMs === null ? null : this.dayOf(row.timestampMs).slice(0, 7);
      case 'session':
        return row.sessionId;
      case 'model':
        return row.model;
      case 'project':
        return row.project;
      case 'host':
        return row.host;
      default: {
        const unreachable: never = this.options.by;
        return unreachable;
      }
    }
  }

  /** Adds one measured request (outside the window: left out, as by the SQL's WHERE). */
  add(row: BillRequest): void {
    const { sinceMs, untilMs } = this.options.window;
    if (sinceMs !== null && (row.timestampMs === null || row.timestampMs < sinceMs)) return;
    if (untilMs !== null && (row.timestampMs === null || row.timestampMs >= untilMs)) return;
    const priced = priceRequest(
      {
        kind: 'request',
        prompt_tokens: row.promptTokens,
        cache_read_tokens: row.cacheReadTokens,
        cache_write_5m_tokens: row.cacheWrite5mTokens,
        cache_write_1h_tokens: row.cacheWrite1hTokens,
        uncached_input_tokens: row.uncachedInputTokens,
        output_tokens: row.outputTokens,
      },
      this.priceOf(row.model, row.timestampMs),
    );
    // As bill_requests.sql: the 5m cost is tokens × rate, so the unknown share is exact.
    const writeUnknown =
      priced === null || row.unknownTtlTokens === 0
        ? 0n
        : (priced.cacheWrite5mPicoUsd * BigInt(row.unknownTtlTokens)) / BigInt(row.cacheWrite5mTokens);
    if (priced === null) {
      const seen = this.unpriced.get(row.model);
      const tokens = row.promptTokens + row.outputTokens;
      if (seen === undefined) this.unpriced.set(row.model, { requests: 1, tokens });
      else {
        seen.requests += 1;
        seen.tokens += tokens;
      }
    }
    const key = this.keyOf(row);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = newGroup(key);
      this.groups.set(key, group);
    }
    addTo(group, row, priced, writeUnknown);
    addTo(this.total, row, priced, writeUnknown);
    if (!this.options.breakdown) return;
    let models = this.perModel.get(key);
    if (models === undefined) {
      models = new Map();
      this.perModel.set(key, models);
    }
    let byModel = models.get(row.model);
    if (byModel === undefined) {
      byModel = newGroup(key);
      models.set(row.model, byModel);
    }
    addTo(byModel, row, priced, writeUnknown);
  }

  /** The bill grouped as asked, with its total (`billTable` of `cost/bill.ts`, subagents known). */
  table(): BillTable {
    const order = rowOrder(this.options.by);
    const groups = [...this.groups.values()].sort(order);
    const lines = groups.map((group) => {
      const models = [...(this.perModel.get(group.key)?.entries() ?? [])];
      const breakdown = models
        .sort(([ma, a], [mb, b]) => order(a, b) || compareCodePoints(ma, mb))
        .map(([model, byModel]) => lineOf(byModel, model));
      return { ...lineOf(group, group.key), breakdown };
    });
    return { lines, total: lineOf(this.total, null) };
  }

  /** Models that left requests unpriced, most requests first, then by name (`bill_unpriced`). */
  unpricedModels(): BillUnpricedModel[] {
    return [...this.unpriced.entries()]
      .map(([model, seen]) => ({ model, requests: seen.requests, tokens: seen.tokens }))
      .sort((a, b) => b.requests - a.requests || compareCodePoints(a.model, b.model));
  }
}
