/**
 * The bill computed in TypeScript, for `report` without `--db`: the same table as
 * `sql/bill_requests.sql` + `sql/bill_report.sql` + `sql/bill_unpriced.sql` (every line, every
 * column, the same order), from the same measured requests, priced as the TypeScript reference
 * prices them (`priceRequest`, held equal to `request_costs.sql` by test/cost/differential.test.ts;
 * here as token sums per set of rates, see `addTo`). Loading
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
import { picoProduct, picoUsdToUsd } from './money.js';
import { resolveModelName } from './model-resolution.js';
import type { ClassRates } from './price-table.js';
import { priceAt } from './price-table.js';
import type { ModelPrice, PriceTable } from './price-table.js';
import type { Money } from './reports.js';
import { unknownTtlTokens } from '../session/cache-class-tokens.js';

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
  /** The session and model last put in the sets (consecutive requests mostly share both: one Set lookup per change). */
  lastSession: string | null;
  lastModel: string | null;
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
  /** The token sums of the priced requests, per set of rates they were priced at (`settle` turns them into costs). */
  readonly buckets: Map<ClassRates, Bucket>;
  pricedOwn: number;
  pricedSubagent: number;
  /** An unpriced request without unknown-TTL writes was added (its unknown-TTL cost column is then 0, not NULL). */
  unknownTtlZero: boolean;
};

/** Tokens of one class split as the bill's columns: the 5m column without its unknown-TTL part. */
type ClassSums = {
  input: number;
  read: number;
  write5m: number;
  writeUnknown: number;
  write1h: number;
  output: number;
};

/** Priced requests of a group at one set of rates, main agent and sub-agents apart. */
type Bucket = { readonly rates: ClassRates; readonly own: ClassSums; readonly subagent: ClassSums };

const noSums = (): ClassSums => ({ input: 0, read: 0, write5m: 0, writeUnknown: 0, write1h: 0, output: 0 });

/** rate × tokens in pico-dollars (exact); a class without a rate has no priced tokens (they make a request unpriced). */
function times(rate: number | null, tokens: number): bigint {
  return rate === null || tokens === 0 ? 0n : picoProduct(rate, tokens);
}

/** The costs of a bucket's sums, per column. */
function costsOf(rates: ClassRates, sums: ClassSums) {
  const input = times(rates.input, sums.input);
  const read = times(rates.cacheRead, sums.read);
  const write5m = times(rates.cacheWrite5m, sums.write5m);
  const writeUnknown = times(rates.cacheWrite5m, sums.writeUnknown);
  const write1h = times(rates.cacheWrite1h, sums.write1h);
  const output = times(rates.output, sums.output);
  return {
    input,
    read,
    write5m,
    writeUnknown,
    write1h,
    output,
    total: input + read + write5m + writeUnknown + write1h + output,
  };
}

function newGroup(key: string | null): Group {
  return {
    key,
    requests: 0,
    sessions: new Set(),
    models: new Set(),
    lastSession: null,
    lastModel: null,
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
    buckets: new Map(),
    pricedOwn: 0,
    pricedSubagent: 0,
    unknownTtlZero: false,
  };
}

/**
 * Adds a request to a group; `rates` null = unpriced. Its cost is not computed here: pricing is
 * linear (every class costs tokens × rate, the unknown-TTL share of the 5m column included, as in
 * bill_requests.sql), so the group sums tokens per set of rates and `settle` multiplies once. The
 * same pico-dollars as pricing each request (`priceRequest`), without a BigInt per class per request.
 */
function addTo(group: Group, row: BillRequest, rates: ClassRates | null, longContext: boolean): void {
  group.requests += 1;
  if (row.sessionId !== group.lastSession) {
    group.sessions.add(row.sessionId);
    group.lastSession = row.sessionId;
  }
  if (row.model !== group.lastModel) {
    group.models.add(row.model);
    group.lastModel = row.model;
  }
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
  if (rates === null) {
    group.unpriced += 1;
    group.unpricedTokens += row.promptTokens + row.outputTokens;
    if (row.subagent) group.subagentUnpriced += 1;
    // As bill_requests.sql: an unpriced request without unknown-TTL writes adds 0 (not NULL) to
    // that column, whose cost is then $0 for its 0 tokens rather than unpriced.
    if (row.unknownTtlTokens === 0) group.unknownTtlZero = true;
    return;
  }
  if (longContext) group.longContext += 1;
  let bucket = group.buckets.get(rates);
  if (bucket === undefined) {
    bucket = { rates, own: noSums(), subagent: noSums() };
    group.buckets.set(rates, bucket);
  }
  const sums = row.subagent ? bucket.subagent : bucket.own;
  if (row.subagent) group.pricedSubagent += 1;
  else group.pricedOwn += 1;
  sums.input += row.uncachedInputTokens;
  sums.read += row.cacheReadTokens;
  sums.write5m += row.cacheWrite5mTokens - row.unknownTtlTokens;
  sums.writeUnknown += row.unknownTtlTokens;
  sums.write1h += row.cacheWrite1hTokens;
  sums.output += row.outputTokens;
}

/**
 * Adds a group's requests to `into` as `addTo` would have, request by request: the same sums (whole
 * numbers, exact in any order), sets and extremes. The total is made so from the groups, which
 * hold each request exactly once, instead of a second `addTo` per request.
 */
function mergeInto(into: Group, group: Group): void {
  into.requests += group.requests;
  for (const session of group.sessions) into.sessions.add(session);
  for (const model of group.models) into.models.add(model);
  if (group.first !== null && (into.first === null || group.first < into.first)) into.first = group.first;
  if (group.last !== null && (into.last === null || group.last > into.last)) into.last = group.last;
  into.prompt += group.prompt;
  into.uncached += group.uncached;
  into.read += group.read;
  into.write5m += group.write5m;
  into.write1h += group.write1h;
  into.writeUnknown += group.writeUnknown;
  into.output += group.output;
  into.longContext += group.longContext;
  into.unpriced += group.unpriced;
  into.unpricedTokens += group.unpricedTokens;
  into.subagentRequests += group.subagentRequests;
  into.subagentUnpriced += group.subagentUnpriced;
  into.ownRequests += group.ownRequests;
  into.pricedOwn += group.pricedOwn;
  into.pricedSubagent += group.pricedSubagent;
  if (group.unknownTtlZero) into.unknownTtlZero = true;
  for (const [rates, bucket] of group.buckets) {
    let sums = into.buckets.get(rates);
    if (sums === undefined) {
      sums = { rates, own: noSums(), subagent: noSums() };
      into.buckets.set(rates, sums);
    }
    addSums(sums.own, bucket.own);
    addSums(sums.subagent, bucket.subagent);
  }
}

function addSums(into: ClassSums, sums: ClassSums): void {
  into.input += sums.input;
  into.read += sums.read;
  into.write5m += sums.write5m;
  into.writeUnknown += sums.writeUnknown;
  into.write1h += sums.write1h;
  into.output += sums.output;
}

/**
 * The largest prompt for which `ratesFor` gives `price`'s base rates to any request whatever its
 * token classes (every class has a rate; the long-context tier starts above its threshold): -1
 * where no such prompt exists (no price, or a class without a rate).
 */
function baseTierUpTo(price: ModelPrice | null): number {
  if (price === null) return -1;
  const rates = price.ratesPicoUsdPerToken;
  if (rates.cacheRead === null || rates.cacheWrite5m === null || rates.cacheWrite1h === null) return -1;
  return price.longContext === null ? Number.POSITIVE_INFINITY : price.longContext.thresholdTokens;
}

/** `addSums` of token counts given one by one (`addColumnsToGroup`'s runs). */
function addTokens(
  into: ClassSums,
  input: number,
  read: number,
  write5m: number,
  writeUnknown: number,
  write1h: number,
  output: number,
): void {
  into.input += input;
  into.read += read;
  into.write5m += write5m;
  into.writeUnknown += writeUnknown;
  into.write1h += write1h;
  into.output += output;
}

function anyTokens(sums: ClassSums): boolean {
  return (
    sums.input !== 0 ||
    sums.read !== 0 ||
    sums.write5m !== 0 ||
    sums.writeUnknown !== 0 ||
    sums.write1h !== 0 ||
    sums.output !== 0
  );
}

/** A group's cost columns as `settle` adds them up. */
type CostSums = { input: bigint; read: bigint; write5m: bigint; writeUnknown: bigint; write1h: bigint; output: bigint };

/** Adds the cost of `sums` at `rates` to `into`, column by column; returns its total. */
function addCosts(into: CostSums, rates: ClassRates, sums: ClassSums): bigint {
  const costs = costsOf(rates, sums);
  into.input += costs.input;
  into.read += costs.read;
  into.write5m += costs.write5m;
  into.writeUnknown += costs.writeUnknown;
  into.write1h += costs.write1h;
  into.output += costs.output;
  return costs.total;
}

/** Turns a group's token sums into its cost columns (SQL's `sum`: NULL when nothing priced was added). */
function settle(group: Group): void {
  const priced = group.pricedOwn + group.pricedSubagent > 0;
  const sums: CostSums = { input: 0n, read: 0n, write5m: 0n, writeUnknown: 0n, write1h: 0n, output: 0n };
  let own = 0n;
  let subagent = 0n;
  // Sums without tokens cost 0 in every column: skipped (most groups have no sub-agent requests).
  for (const bucket of group.buckets.values()) {
    if (anyTokens(bucket.own)) own += addCosts(sums, bucket.rates, bucket.own);
    if (anyTokens(bucket.subagent)) subagent += addCosts(sums, bucket.rates, bucket.subagent);
  }
  group.costInput = priced ? sums.input : null;
  group.costRead = priced ? sums.read : null;
  group.costWrite5m = priced ? sums.write5m : null;
  group.costWrite1h = priced ? sums.write1h : null;
  group.costWriteUnknown = priced || group.unknownTtlZero ? sums.writeUnknown : null;
  group.costOutput = priced ? sums.output : null;
  group.cost = priced ? own + subagent : null;
  group.subagentCost = group.pricedSubagent > 0 ? subagent : null;
  group.ownCost = group.pricedOwn > 0 ? own : null;
}

function money(picoUsd: bigint | null): Money {
  return picoUsd === null ? null : { picoUsd, usd: usdOfPico(picoUsd) };
}

/** Below this magnitude a pico-dollar amount, and each step of `usdOfPico`, is exact as a number. */
const EXACT_PICO = 2 ** 52;

/**
 * `picoUsdToUsd`, the same number, without two BigInt divisions where the amount is below 2^52
 * pico-dollars (~$4,500): the whole dollars (truncated toward zero, as BigInt's `/`) and the
 * remainder (of the amount's sign, as `%`) worked out exactly as numbers, then added as
 * `picoUsdToUsd` adds them. Exact: below 2^52 the amount converts exactly, and the quotient,
 * under 4,504 in magnitude, is rounded by less than 10^-12 (half its unit in the last place), so
 * it never crosses the next whole number: `Math.trunc` gives BigInt's quotient; the product and
 * the difference are whole numbers far below 2^53. A bill's table makes ten per line.
 */
export function usdOfPico(picoUsd: bigint): number {
  const amount = Number(picoUsd);
  if (!(amount > -EXACT_PICO && amount < EXACT_PICO)) return picoUsdToUsd(picoUsd);
  const whole = Math.trunc(amount / 1e12);
  return whole + (amount - whole * 1e12) / 1e12;
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

/**
 * A session's requests as stored columns (the run pack's form, `ingest/session-codec.ts`): a
 * timestamp per request (NaN = none), `layout.stride` int32 per request, and the strings that the
 * string slots index. `BillAggregator.addColumns` folds them without a row object per request.
 */
export type BillColumns = {
  readonly timestamps: Float64Array;
  readonly rows: Int32Array;
  readonly strings: readonly string[];
  /** The sums of the measured requests by model and side of the sub-agent split (`BillSumsLayout`); absent: none stored. */
  readonly sums?: Float64Array;
};

/**
 * Where each figure lies in `BillColumns.sums`: the session's figures, then one entry of `stride`
 * per model (a string slot) and side of the sub-agent split, with the entry's request count, its
 * largest prompt and its token sums as the bill's columns split them.
 */
export type BillSumsLayout = {
  readonly measured: number;
  /** The earliest and latest timestamp (NaN: none). */
  readonly first: number;
  readonly last: number;
  readonly entries: number;
  readonly stride: number;
  readonly model: number;
  /** 1 for sub-agent requests. */
  readonly subagent: number;
  readonly requests: number;
  readonly maxPrompt: number;
  readonly prompt: number;
  readonly uncached: number;
  readonly read: number;
  /** 5m-rate writes without their unknown-TTL part. */
  readonly write5m: number;
  readonly writeUnknown: number;
  readonly write1h: number;
  readonly output: number;
};

/** Where each field of a request lies in its row of `BillColumns.rows`; `nullSlot` = a null count or string. */
export type BillRowLayout = {
  readonly stride: number;
  readonly nullSlot: number;
  /** 1 when the request has measured usage (the counts), else it is not billed. */
  readonly hasUsage: number;
  readonly model: number;
  readonly agentId: number;
  readonly promptTokens: number;
  readonly uncachedInputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
  readonly sums: BillSumsLayout;
};

/** What `addColumns` saw: measured requests, and those without a timestamp (counted whatever the window). */
export type ColumnCounts = { measured: number; undated: number };

/** Folds measured requests into the bill, one at a time; `table()` and `unpricedModels()` read it. */
export class BillAggregator {
  private readonly groups = new Map<string | null, Group>();
  /** Group key → model → the group's requests of that model (with `breakdown`). */
  private readonly perModel = new Map<string | null, Map<string, Group>>();
  private readonly unpriced = new Map<string, { requests: number; tokens: number }>();
  private readonly dayOf: (ms: number) => string;
  private readonly resolved = new Map<string, string | null>();
  /** Model → its price when the table has one price for it at every time (then `priceAt` need not look). */
  private readonly timeless = new Map<string, ModelPrice | null>();
  /** The group `add` last added to (consecutive requests mostly share their group). */
  private last: { readonly key: string | null; readonly group: Group } | null = null;
  /** Whether the request `pricedRates` last priced is past its model's long-context threshold. */
  private longContext = false;

  constructor(
    private readonly prices: PriceTable,
    private readonly options: BillAggregateOptions,
  ) {
    this.dayOf = dayFormatter(options.timeZone);
  }

  private priceOf(model: string, timestampMs: number | null): ModelPrice | null {
    const timeless = this.timeless.get(model);
    if (timeless !== undefined) return timeless;
    let id = this.resolved.get(model);
    if (id === undefined) {
      id = resolveModelName(this.prices, model)?.id ?? null;
      this.resolved.set(model, id);
      // One window open at both ends: `priceAt` gives it for every timestamp, null included.
      const windows = id === null ? [] : (this.prices.windowsById.get(id) ?? []);
      const only = windows.length === 1 ? windows[0] : undefined;
      if (id === null) this.timeless.set(model, null);
      else if (only !== undefined && only.validFromMs === null && only.validToMs === null)
        this.timeless.set(model, only);
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
    const rates = this.pricedRates(row, this.priceOf(row.model, row.timestampMs));
    const longContext = this.longContext;
    const key = this.keyOf(row);
    addTo(this.groupOf(key), row, rates, longContext);
    if (this.options.breakdown) this.addToModel(key, row, rates, longContext);
  }

  /** Adds a request to its group's line for its model (`--breakdown`). */
  private addToModel(key: string | null, row: BillRequest, rates: ClassRates | null, longContext: boolean): void {
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
    addTo(byModel, row, rates, longContext);
  }

  /**
   * `add` of each measured request of one session, read from its stored columns: the same sums,
   * sets, extremes, unpriced counts and prices. A model's price is looked up once per run of its
   * requests, the group once per session (by session, project or host) or when the key changes,
   * in one loop over the columns: a re-run folds ~35,000 requests, mostly before V8 has optimized
   * anything, where each call and lookup per request is paid in the interpreter. `place`: the
   * session's project and host. test/usecases/bill-columns.test.ts holds it equal to `add`.
   */
  addColumns(
    sessionId: string,
    place: { readonly project: string | null; readonly host: string | null },
    columns: BillColumns,
    layout: BillRowLayout,
    counts: ColumnCounts,
  ): void {
    const { by, window, breakdown } = this.options;
    const { sinceMs, untilMs } = window;
    const bounded = sinceMs !== null || untilMs !== null;
    const { timestamps, rows, strings } = columns;
    // The offsets as locals: read once, not once per request.
    const { stride, nullSlot, hasUsage, agentId, promptTokens, uncachedInputTokens, cacheReadTokens } = layout;
    const { cacheWriteTokens, cacheWrite5mTokens, cacheWrite1hTokens, outputTokens } = layout;
    const modelAt = layout.model;
    // Every request of the session in one group, or a key per request (its date, its model).
    const fixed = by === 'session' || by === 'project' || by === 'host';
    const sessionKey = by === 'session' ? sessionId : by === 'project' ? place.project : place.host;
    if (fixed && !breakdown) {
      if (bounded || columns.sums === undefined || !this.addSums(sessionKey, sessionId, columns, layout, counts))
        this.addColumnsToGroup(sessionKey, sessionId, columns, layout, counts);
      return;
    }
    let group: Group | undefined;
    let groupKey: string | null = null;
    // The row `addTo` reads, overwritten for each request.
    const row: { -readonly [K in keyof BillRequest]: BillRequest[K] } = {
      sessionId,
      project: place.project,
      host: place.host,
      model: '',
      timestampMs: null,
      subagent: false,
      promptTokens: 0,
      uncachedInputTokens: 0,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
      unknownTtlTokens: 0,
    };
    let modelSlot = Number.NaN;
    /** The current model's price when it is the same at every time (`timeless`); undefined = look it up. */
    let modelPrice: ModelPrice | null | undefined;
    for (let i = 0, at = 0; i < timestamps.length; i += 1, at += stride) {
      if (rows[at + hasUsage] !== 1) continue;
      counts.measured += 1;
      const stamp = timestamps[i] ?? Number.NaN;
      const timestampMs = Number.isNaN(stamp) ? null : stamp;
      if (bounded && timestampMs === null) counts.undated += 1;
      if (sinceMs !== null && (timestampMs === null || timestampMs < sinceMs)) continue;
      if (untilMs !== null && (timestampMs === null || timestampMs >= untilMs)) continue;
      const slot = rows[at + modelAt] ?? nullSlot;
      if (slot !== modelSlot) {
        modelSlot = slot;
        row.model = slot === nullSlot ? '' : (strings[slot] ?? '');
        modelPrice = undefined;
      }
      let price: ModelPrice | null;
      if (modelPrice !== undefined) price = modelPrice;
      else {
        price = this.priceOf(row.model, timestampMs);
        modelPrice = this.timeless.get(row.model);
      }
      const agent = rows[at + agentId] ?? nullSlot;
      const write = rows[at + cacheWriteTokens] ?? 0;
      const write5m = rows[at + cacheWrite5mTokens] ?? nullSlot;
      const write1h = rows[at + cacheWrite1hTokens] ?? nullSlot;
      const known1h = write1h === nullSlot ? 0 : write1h;
      row.timestampMs = timestampMs;
      row.subagent = agent !== nullSlot && strings[agent] !== undefined;
      row.promptTokens = rows[at + promptTokens] ?? 0;
      row.uncachedInputTokens = rows[at + uncachedInputTokens] ?? 0;
      row.cacheReadTokens = rows[at + cacheReadTokens] ?? 0;
      // As `measuredRows`: whatever is not a known 1h write bills at the 5m rate; the part of it
      // whose TTL the log did not give (no 5m/1h split, or half of one) is the unknown-TTL share.
      row.cacheWrite5mTokens = write - known1h;
      row.cacheWrite1hTokens = known1h;
      row.outputTokens = rows[at + outputTokens] ?? 0;
      row.unknownTtlTokens = unknownTtlTokens(
        write,
        write5m === nullSlot ? null : write5m,
        write1h === nullSlot ? null : write1h,
      );
      const rates = this.pricedRates(row, price);
      const longContext = this.longContext;
      const key = fixed ? sessionKey : this.keyOf(row);
      if (group === undefined || key !== groupKey) {
        group = this.groupOf(key);
        groupKey = key;
      }
      addTo(group, row, rates, longContext);
      if (breakdown) this.addToModel(key, row, rates, longContext);
    }
  }

  /**
   * `addColumns` where every request of the session goes to one group and no breakdown is kept
   * (by session, project or host, the common re-run): `addTo` of each request with the group's
   * counts and sums kept in locals, written to the group once, and each set of rates' sums looked
   * up once per run of requests priced alike: the same numbers (every sum is of whole numbers),
   * sets and extremes. test/usecases/bill-columns.test.ts holds it equal to `add`.
   */
  private addColumnsToGroup(
    key: string | null,
    sessionId: string,
    columns: BillColumns,
    layout: BillRowLayout,
    counts: ColumnCounts,
  ): void {
    const { sinceMs, untilMs } = this.options.window;
    const bounded = sinceMs !== null || untilMs !== null;
    const { timestamps, rows, strings } = columns;
    const { stride, nullSlot, hasUsage, agentId, promptTokens, uncachedInputTokens, cacheReadTokens } = layout;
    const { cacheWriteTokens, cacheWrite5mTokens, cacheWrite1hTokens, outputTokens } = layout;
    const modelAt = layout.model;
    // Made when a request reaches it, as by `add` (a session without one in the window makes no group).
    let group: Group | undefined;
    let requests = 0;
    let first: number | null = null;
    let last: number | null = null;
    let prompt = 0;
    let uncached = 0;
    let read = 0;
    let write5mKnown = 0;
    let write1h = 0;
    let writeUnknown = 0;
    let output = 0;
    let subagentRequests = 0;
    let ownRequests = 0;
    let unpriced = 0;
    let unpricedTokens = 0;
    let subagentUnpriced = 0;
    let longContextRequests = 0;
    let pricedOwn = 0;
    let pricedSubagent = 0;
    let unknownTtlZero = false;
    let measured = 0;
    let undated = 0;
    let modelSlot = Number.NaN;
    let model = '';
    let modelPrice: ModelPrice | null | undefined;
    // The sums of the current run of requests priced alike (same rates, same side of the
    // sub-agent split), kept in locals and added to their bucket's `sums` when the run ends.
    let sums: ClassSums | undefined;
    let sumsRates: ClassRates | null = null;
    let sumsSubagent = false;
    let runInput = 0;
    let runRead = 0;
    let runWrite5m = 0;
    let runUnknown = 0;
    let runWrite1h = 0;
    let runOutput = 0;
    // The price of the current run of requests when `ratesFor` would give its base rates to any
    // request up to `baseUpTo` prompt tokens (every class has a rate): those skip the call.
    let basePrice: ModelPrice | null = null;
    let baseRates: ClassRates | null = null;
    let baseUpTo = -1;
    for (let i = 0, at = 0; i < timestamps.length; i += 1, at += stride) {
      if (rows[at + hasUsage] !== 1) continue;
      measured += 1;
      const stamp = timestamps[i] ?? Number.NaN;
      const timestampMs = Number.isNaN(stamp) ? null : stamp;
      if (bounded && timestampMs === null) undated += 1;
      if (sinceMs !== null && (timestampMs === null || timestampMs < sinceMs)) continue;
      if (untilMs !== null && (timestampMs === null || timestampMs >= untilMs)) continue;
      const slot = rows[at + modelAt] ?? nullSlot;
      if (group === undefined) {
        group = this.groupOf(key);
        first = group.first;
        last = group.last;
      }
      if (slot !== modelSlot) {
        modelSlot = slot;
        model = slot === nullSlot ? '' : (strings[slot] ?? '');
        modelPrice = undefined;
        if (model !== group.lastModel) {
          group.models.add(model);
          group.lastModel = model;
        }
      }
      let price: ModelPrice | null;
      if (modelPrice !== undefined) price = modelPrice;
      else {
        price = this.priceOf(model, timestampMs);
        modelPrice = this.timeless.get(model);
      }
      if (price !== basePrice) {
        basePrice = price;
        baseRates = price === null ? null : price.ratesPicoUsdPerToken;
        baseUpTo = baseTierUpTo(price);
      }
      const agent = rows[at + agentId] ?? nullSlot;
      const subagent = agent !== nullSlot && strings[agent] !== undefined;
      const write = rows[at + cacheWriteTokens] ?? 0;
      const write5m = rows[at + cacheWrite5mTokens] ?? nullSlot;
      const write1hSlot = rows[at + cacheWrite1hTokens] ?? nullSlot;
      const known1h = write1hSlot === nullSlot ? 0 : write1hSlot;
      const requestPrompt = rows[at + promptTokens] ?? 0;
      const requestUncached = rows[at + uncachedInputTokens] ?? 0;
      const requestRead = rows[at + cacheReadTokens] ?? 0;
      const requestOutput = rows[at + outputTokens] ?? 0;
      // As `measuredRows`: whatever is not a known 1h write bills at the 5m rate; the part of it
      // whose TTL the log did not give is the unknown-TTL share.
      const requestWrite5m = write - known1h;
      const unknown = unknownTtlTokens(
        write,
        write5m === nullSlot ? null : write5m,
        write1hSlot === nullSlot ? null : write1hSlot,
      );
      // `addTo`, into the locals.
      requests += 1;
      if (timestampMs !== null) {
        if (first === null || timestampMs < first) first = timestampMs;
        if (last === null || timestampMs > last) last = timestampMs;
      }
      prompt += requestPrompt;
      uncached += requestUncached;
      read += requestRead;
      write5mKnown += requestWrite5m - unknown;
      write1h += known1h;
      writeUnknown += unknown;
      output += requestOutput;
      if (subagent) subagentRequests += 1;
      else ownRequests += 1;
      // As `ratesFor` for a request within its price's base tier whose classes all have a rate.
      const base = requestPrompt <= baseUpTo;
      const rates = base
        ? baseRates
        : this.ratesFor(model, price, requestPrompt, requestRead, requestWrite5m, known1h, requestOutput);
      if (rates === null) {
        unpriced += 1;
        unpricedTokens += requestPrompt + requestOutput;
        if (subagent) subagentUnpriced += 1;
        if (unknown === 0) unknownTtlZero = true;
        continue;
      }
      if (!base && this.longContext) longContextRequests += 1;
      if (rates !== sumsRates || subagent !== sumsSubagent || sums === undefined) {
        if (sums !== undefined) addTokens(sums, runInput, runRead, runWrite5m, runUnknown, runWrite1h, runOutput);
        runInput = 0;
        runRead = 0;
        runWrite5m = 0;
        runUnknown = 0;
        runWrite1h = 0;
        runOutput = 0;
        let bucket = group.buckets.get(rates);
        if (bucket === undefined) {
          bucket = { rates, own: noSums(), subagent: noSums() };
          group.buckets.set(rates, bucket);
        }
        sums = subagent ? bucket.subagent : bucket.own;
        sumsRates = rates;
        sumsSubagent = subagent;
      }
      if (subagent) pricedSubagent += 1;
      else pricedOwn += 1;
      runInput += requestUncached;
      runRead += requestRead;
      runWrite5m += requestWrite5m - unknown;
      runUnknown += unknown;
      runWrite1h += known1h;
      runOutput += requestOutput;
    }
    counts.measured += measured;
    counts.undated += undated;
    if (group === undefined) return;
    if (sums !== undefined) addTokens(sums, runInput, runRead, runWrite5m, runUnknown, runWrite1h, runOutput);
    group.requests += requests;
    if (sessionId !== group.lastSession) {
      group.sessions.add(sessionId);
      group.lastSession = sessionId;
    }
    group.first = first;
    group.last = last;
    group.prompt += prompt;
    group.uncached += uncached;
    group.read += read;
    group.write5m += write5mKnown;
    group.write1h += write1h;
    group.writeUnknown += writeUnknown;
    group.output += output;
    group.subagentRequests += subagentRequests;
    group.ownRequests += ownRequests;
    group.unpriced += unpriced;
    group.unpricedTokens += unpricedTokens;
    group.subagentUnpriced += subagentUnpriced;
    group.longContext += longContextRequests;
    group.pricedOwn += pricedOwn;
    group.pricedSubagent += pricedSubagent;
    if (unknownTtlZero) group.unknownTtlZero = true;
  }

  /**
   * `addColumnsToGroup` of a session without a window, from its stored sums instead of its
   * requests, where that gives the same bill: each model's price is the same at every time and
   * each of its requests is within that price's base tier with every class priced (its largest
   * prompt tells), so every request of an entry is priced at the same rates, none unpriced, none
   * long-context. Then the entry's sums are what the fold would add (whole numbers, in any order).
   * False, changing nothing, where an entry does not qualify (or the sums are not whole entries):
   * the caller folds the requests. test/usecases/bill-columns.test.ts holds it equal to `add`.
   */
  private addSums(
    key: string | null,
    sessionId: string,
    columns: BillColumns,
    layout: BillRowLayout,
    counts: ColumnCounts,
  ): boolean {
    const { sums, strings } = columns;
    if (sums === undefined) return false;
    const at = layout.sums;
    if (sums.length < at.entries || (sums.length - at.entries) % at.stride !== 0) return false;
    const modelOf = (entry: number): string => {
      const slot = sums[entry + at.model] ?? layout.nullSlot;
      return slot === layout.nullSlot ? '' : (strings[slot] ?? '');
    };
    for (let entry = at.entries; entry < sums.length; entry += at.stride) {
      const model = modelOf(entry);
      this.priceOf(model, null);
      const price = this.timeless.get(model);
      if (price === undefined || price === null) return false;
      if ((sums[entry + at.maxPrompt] ?? Number.POSITIVE_INFINITY) > baseTierUpTo(price)) return false;
    }
    const measured = sums[at.measured] ?? 0;
    counts.measured += measured;
    // No request, no group (as the fold: a group is made when a request reaches it).
    if (measured === 0) return true;
    const group = this.groupOf(key);
    if (sessionId !== group.lastSession) {
      group.sessions.add(sessionId);
      group.lastSession = sessionId;
    }
    const first = sums[at.first] ?? Number.NaN;
    const last = sums[at.last] ?? Number.NaN;
    if (!Number.isNaN(first) && (group.first === null || first < group.first)) group.first = first;
    if (!Number.isNaN(last) && (group.last === null || last > group.last)) group.last = last;
    for (let entry = at.entries; entry < sums.length; entry += at.stride) {
      const model = modelOf(entry);
      if (model !== group.lastModel) {
        group.models.add(model);
        group.lastModel = model;
      }
      const rates = (this.timeless.get(model) as ModelPrice).ratesPicoUsdPerToken;
      let bucket = group.buckets.get(rates);
      if (bucket === undefined) {
        bucket = { rates, own: noSums(), subagent: noSums() };
        group.buckets.set(rates, bucket);
      }
      const subagent = sums[entry + at.subagent] === 1;
      const requests = sums[entry + at.requests] ?? 0;
      const uncached = sums[entry + at.uncached] ?? 0;
      const read = sums[entry + at.read] ?? 0;
      const write5m = sums[entry + at.write5m] ?? 0;
      const writeUnknown = sums[entry + at.writeUnknown] ?? 0;
      const write1h = sums[entry + at.write1h] ?? 0;
      const output = sums[entry + at.output] ?? 0;
      addTokens(subagent ? bucket.subagent : bucket.own, uncached, read, write5m, writeUnknown, write1h, output);
      group.requests += requests;
      group.prompt += sums[entry + at.prompt] ?? 0;
      group.uncached += uncached;
      group.read += read;
      group.write5m += write5m;
      group.write1h += write1h;
      group.writeUnknown += writeUnknown;
      group.output += output;
      if (subagent) {
        group.subagentRequests += requests;
        group.pricedSubagent += requests;
      } else {
        group.ownRequests += requests;
        group.pricedOwn += requests;
      }
    }
    return true;
  }

  /**
   * `pricedRates` of a request given by its fields (the model, the price looked up for it, its
   * prompt, cache-read, 5m-rate write, 1h write and output tokens).
   */
  private ratesFor(
    model: string,
    price: ModelPrice | null,
    prompt: number,
    read: number,
    write5m: number,
    write1h: number,
    output: number,
  ): ClassRates | null {
    const longContext = price !== null && price.longContext !== null && prompt > price.longContext.thresholdTokens;
    this.longContext = longContext;
    const rates =
      price === null
        ? null
        : longContext && price.longContext !== null
          ? price.longContext.ratesPicoUsdPerToken
          : price.ratesPicoUsdPerToken;
    if (
      rates !== null &&
      (read === 0 || rates.cacheRead !== null) &&
      (write5m === 0 || rates.cacheWrite5m !== null) &&
      (write1h === 0 || rates.cacheWrite1h !== null)
    )
      return rates;
    const seen = this.unpriced.get(model);
    const tokens = prompt + output;
    if (seen === undefined) this.unpriced.set(model, { requests: 1, tokens });
    else {
      seen.requests += 1;
      seen.tokens += tokens;
    }
    return null;
  }

  /**
   * The rates a request is priced at (and in `longContext`, whether its long-context tier
   * applies); null = unpriced: no price, or tokens in a class the price has no rate for (never $0,
   * as priceRequest's classCost), then counted against its model.
   */
  private pricedRates(row: BillRequest, price: ModelPrice | null): ClassRates | null {
    return this.ratesFor(
      row.model,
      price,
      row.promptTokens,
      row.cacheReadTokens,
      row.cacheWrite5mTokens,
      row.cacheWrite1hTokens,
      row.outputTokens,
    );
  }

  /** The group of `key`, made when new (consecutive requests mostly share their group). */
  private groupOf(key: string | null): Group {
    let group = this.last !== null && this.last.key === key ? this.last.group : this.groups.get(key);
    if (group === undefined) {
      group = newGroup(key);
      this.groups.set(key, group);
    }
    if (this.last?.group !== group) this.last = { key, group };
    return group;
  }

  /** The bill grouped as asked, with its total (`billTable` of `cost/bill.ts`, subagents known). */
  table(): BillTable {
    const order = rowOrder(this.options.by);
    const total = newGroup(null);
    for (const group of this.groups.values()) {
      mergeInto(total, group);
      settle(group);
    }
    settle(total);
    for (const models of this.perModel.values()) for (const group of models.values()) settle(group);
    const groups = [...this.groups.values()].sort(order);
    const lines = groups.map((group) => {
      const models = [...(this.perModel.get(group.key)?.entries() ?? [])];
      const breakdown = models
        .sort(([ma, a], [mb, b]) => order(a, b) || compareCodePoints(ma, mb))
        .map(([model, byModel]) => lineOf(byModel, model));
      return { ...lineOf(group, group.key), breakdown };
    });
    return { lines, total: lineOf(total, null) };
  }

  /** Models that left requests unpriced, most requests first, then by name (`bill_unpriced`). */
  unpricedModels(): BillUnpricedModel[] {
    return [...this.unpriced.entries()]
      .map(([model, seen]) => ({ model, requests: seen.requests, tokens: seen.tokens }))
      .sort((a, b) => b.requests - a.requests || compareCodePoints(a.model, b.model));
  }
}
