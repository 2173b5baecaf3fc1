/**
 * The `simulate` summary in TypeScript: the rows the replay produces folded as they come into
 * exactly the values the SQL views read by `simulate` return (`session_costs.sql`,
 * `scenario_costs.sql`, `savings.sql` through `session_savings.sql` and `scenario_savings.sql`,
 * `fidelity.sql`, `unpriced_models.sql`), in their `ORDER BY`, so a run that asks for no table
 * (no `--csv`, `--html`, `--db`, database file) neither loads DuckDB nor keeps its rows.
 *
 * Each request is priced by the TypeScript reference (`priceRequest`, held equal to
 * `request_costs.sql`): the model name resolved once, the window in effect at the request's time
 * (none: the open-ended one), the long-context tier when the whole prompt exceeds its threshold, a
 * class with tokens and no rate unpriced (NULL, never 0), a rejected overflow counted at 0 and
 * left out of the token totals.
 *
 * SQL semantics kept on purpose: a sum over no priced row is NULL (`sum` skips NULLs); `count`
 * with a FILTER is 0; the percentages are `100.0 * (a - b)::DOUBLE / c::DOUBLE` over HUGEINT
 * operands, cast to DOUBLE the way DuckDB does it (`duckHugeintToDouble`, not correctly rounded
 * past 2^53); `median` is DuckDB's continuous median; strings order by code point (DuckDB's
 * binary collation); the LEFT JOINs multiply rows when a key repeats, as SQL would.
 * test/cost/summary-aggregate.test.ts holds every value equal to the SQL's on random rows.
 */
import { compareCodePoints } from './bill-aggregate.js';
import { picoUsdToUsd } from './money.js';
import { modelIdOf } from './model-resolution.js';
import type { ModelPrice, PriceTable } from './price-table.js';
import { priceRequest, type RequestCost } from './price-request.js';
import { priceAt } from './price-table.js';
import type { Fidelity, Money, ScenarioCost, ScenarioSaving, SessionCost, UnpricedModel } from './reports.js';
import type { CompactionRow, RequestRow, ScenarioRow, SessionRow } from './rows.js';
import { MEASURED_SCENARIO, NONE_SCENARIO, RECORDED_SCENARIO } from './rows.js';

/** What `simulate` reads of the SQL views, in their order; the same type whichever computed it. */
export type SimulateSummary = {
  readonly sessionCosts: SessionCost[];
  readonly sessionSavings: ScenarioSaving[];
  readonly scenarioCosts: ScenarioCost[];
  readonly scenarioSavings: ScenarioSaving[];
  readonly fidelity: Fidelity[];
  readonly unpricedModels: UnpricedModel[];
};

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);
const TWO_64 = 18446744073709551616;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * A HUGEINT cast to DOUBLE as DuckDB casts it (`Hugeint::TryCast<double>`): the low 64 bits
 * converted, plus the high 64 bits times 2^64; for `upper = -1` (a small negative) the negated
 * complement of the low bits, minus 1. Past 2^53 this is not always the nearest double, which
 * `Number(bigint)` is; checked against DuckDB itself in the test.
 */
export function duckHugeintToDouble(value: bigint): number {
  if (value >= -MAX_SAFE_BIG && value <= MAX_SAFE_BIG) return Number(value);
  const lower = value & UINT64_MAX;
  const upper = value >> 64n;
  if (upper === -1n) return -Number(UINT64_MAX - lower) - 1;
  return Number(lower) + Number(upper) * TWO_64;
}

/** `100.0 * a::DOUBLE / b::DOUBLE` with HUGEINT operands. */
function pctOf(numerator: bigint, denominator: bigint): number {
  return (100 * duckHugeintToDouble(numerator)) / duckHugeintToDouble(denominator);
}

/**
 * DuckDB's `median` of DOUBLEs (`quantile_cont(0.5)`): the middle value, or between the two middle
 * values `lo * (1 - d) + hi * d` with d = 0.5 (not `lo + (hi - lo) * d`, which rounds differently:
 * found on the real logs, and held to DuckDB by the test). Sorts `values`.
 */
export function continuousMedian(values: Float64Array): number | null {
  const n = values.length;
  if (n === 0) return null;
  values.sort();
  const rn = (n - 1) * 0.5;
  const frn = Math.floor(rn);
  const crn = Math.ceil(rn);
  const lo = values[frn] ?? 0;
  if (frn === crn) return lo;
  const hi = values[crn] ?? 0;
  const d = rn - frn;
  return lo * (1 - d) + hi * d;
}

/**
 * An integer column as `intOf` reads it: a safe integer, else the RangeError it throws (the sums
 * here are of non-negative safe integers, so a sum past 2^53 is caught, if not its exact digits).
 */
function safe(value: number): number {
  if (Number.isSafeInteger(value)) return value;
  throw new RangeError(`integer ${String(value)} does not fit a JavaScript number`);
}

function money(picoUsd: bigint | null): Money {
  return picoUsd === null ? null : { picoUsd, usd: picoUsdToUsd(picoUsd) };
}

/** An exact sum of pico-dollars that is NULL until a value is added (SQL `sum`). */
class PicoSum {
  private sum: bigint | null = null;

  add(value: bigint): void {
    this.sum = this.sum === null ? value : this.sum + value;
  }

  value(): bigint | null {
    return this.sum;
  }
}

/** The `req` part of `session_costs.sql`: one session under one scenario. */
class RequestGroup {
  readonly models = new Set<string>();
  requests = 0;
  summarizeRequests = 0;
  rejectedOverflows = 0;
  promptTokens = 0;
  cacheReadTokens = 0;
  cacheWrite5mTokens = 0;
  cacheWrite1hTokens = 0;
  uncachedInputTokens = 0;
  outputTokens = 0;
  peakContextTokens = 0;
  overflowRetries = 0;
  longContextRequests = 0;
  unpricedRequests = 0;
  unpricedPromptTokens = 0;
  unpricedOutputTokens = 0;
  readonly input = new PicoSum();
  readonly read = new PicoSum();
  readonly write5m = new PicoSum();
  readonly write1h = new PicoSum();
  readonly output = new PicoSum();
  readonly cost = new PicoSum();

  constructor(
    readonly sessionId: string,
    readonly scenario: string,
    /** `any_value(source)`: the first row's. */
    readonly source: string,
  ) {}

  addCost(cost: RequestCost): void {
    this.input.add(cost.inputPicoUsd);
    this.read.add(cost.cacheReadPicoUsd);
    this.write5m.add(cost.cacheWrite5mPicoUsd);
    this.write1h.add(cost.cacheWrite1hPicoUsd);
    this.output.add(cost.outputPicoUsd);
    this.cost.add(cost.totalPicoUsd);
  }
}

/** A request `fidelity.sql` pairs: its index, prompt, cache reads and cost (null = unpriced). */
type FidelitySide = {
  readonly index: number;
  readonly prompt: number;
  readonly read: number;
  readonly cost: bigint | null;
};

/** The modelled `request` rows of one session under `measured` and under `recorded`. */
type FidelityRows = { readonly measured: FidelitySide[]; readonly recorded: FidelitySide[] };

/** A model's unpriced requests for one reason (`unpriced_models.sql`). */
type UnpricedGroup = {
  model: string;
  reason: UnpricedModel['reason'];
  requests: number;
  prompt: number;
  output: number;
};

function byKey<T>(map: Map<string, Map<string, T>>, first: string, second: string, make: () => T): T {
  let inner = map.get(first);
  if (inner === undefined) {
    inner = new Map();
    map.set(first, inner);
  }
  let value = inner.get(second);
  if (value === undefined) {
    value = make();
    inner.set(second, value);
  }
  return value;
}

/** The values of a two-level map with their keys, ordered by the first key, then the second (code points). */
function* sortedByKeys<T>(map: ReadonlyMap<string, ReadonlyMap<string, T>>): Generator<[string, string, T]> {
  for (const first of [...map.keys()].sort(compareCodePoints)) {
    const inner = map.get(first);
    if (inner === undefined) continue;
    for (const second of [...inner.keys()].sort(compareCodePoints)) {
      const value = inner.get(second);
      if (value !== undefined) yield [first, second, value];
    }
  }
}

/** A saving's base row (`savings.sql`'s `base`). */
type SavingBase = {
  readonly sessionId: string | null;
  readonly scenario: string;
  readonly promptTokens: number;
  readonly cost: bigint | null;
  readonly unpricedRequests: number;
};

function savingAgainst(row: SavingBase, baseline: SavingBase | null): ScenarioSaving['vsRecorded'] {
  if (baseline === null)
    return { baselinePromptTokens: null, baselineCost: null, promptTokens: null, cost: null, pct: null };
  const difference = baseline.cost === null || row.cost === null ? null : baseline.cost - row.cost;
  return {
    baselinePromptTokens: baseline.promptTokens,
    baselineCost: money(baseline.cost),
    promptTokens: safe(baseline.promptTokens - row.promptTokens),
    cost: money(difference),
    pct: difference !== null && baseline.cost !== null && baseline.cost > 0n ? pctOf(difference, baseline.cost) : null,
  };
}

/** `savings.sql` at one level: every row against the same level's `measured`, `recorded` and `none` rows. */
function savingsOf(rows: readonly SavingBase[]): ScenarioSaving[] {
  const bySession = new Map<string | null, Map<string, SavingBase[]>>();
  for (const row of rows) {
    let scenarios = bySession.get(row.sessionId);
    if (scenarios === undefined) {
      scenarios = new Map();
      bySession.set(row.sessionId, scenarios);
    }
    const list = scenarios.get(row.scenario);
    if (list === undefined) scenarios.set(row.scenario, [row]);
    else list.push(row);
  }
  const NONE: readonly (SavingBase | null)[] = [null];
  const out: ScenarioSaving[] = [];
  for (const row of rows) {
    const scenarios = bySession.get(row.sessionId);
    const measured = scenarios?.get(MEASURED_SCENARIO) ?? NONE;
    const recorded = scenarios?.get(RECORDED_SCENARIO) ?? NONE;
    const none = scenarios?.get(NONE_SCENARIO) ?? NONE;
    for (const mea of measured)
      for (const rec of recorded)
        for (const non of none) {
          out.push({
            sessionId: row.sessionId,
            scenario: row.scenario,
            promptTokens: row.promptTokens,
            cost: money(row.cost),
            unpricedRequests: row.unpricedRequests,
            measuredCost: money(mea?.cost ?? null),
            vsRecorded: savingAgainst(row, rec),
            vsNone: savingAgainst(row, non),
          });
        }
  }
  return out;
}

/** Sums of bigints that stay NULL over NULLs only (SQL `sum`). */
function addNullable(sum: bigint | null, value: bigint | null): bigint | null {
  if (value === null) return sum;
  return sum === null ? value : sum + value;
}

function pico(value: Money): bigint | null {
  return value === null ? null : value.picoUsd;
}

/** `scenario_costs.sql` over the session rows. */
function scenarioCostsOf(sessions: readonly SessionCost[], families: ReadonlyMap<string, string[]>): ScenarioCost[] {
  type Totals = {
    -readonly [K in keyof ScenarioCost]: ScenarioCost[K];
  };
  const sums = new Map<string, { totals: Totals; costs: (bigint | null)[] }>();
  for (const session of sessions) {
    const joined = families.get(session.scenario) ?? [null];
    for (const family of joined) {
      let entry = sums.get(session.scenario);
      if (entry === undefined) {
        entry = {
          totals: {
            scenario: session.scenario,
            family,
            sessions: 0,
            requests: 0,
            summarizeRequests: 0,
            rejectedOverflows: 0,
            promptTokens: 0,
            cacheReadTokens: 0,
            cacheWrite5mTokens: 0,
            cacheWrite1hTokens: 0,
            uncachedInputTokens: 0,
            outputTokens: 0,
            peakContextTokens: session.peakContextTokens,
            overflowRetries: 0,
            longContextRequests: 0,
            unpricedRequests: 0,
            unpricedPromptTokens: 0,
            unpricedOutputTokens: 0,
            inputCost: null,
            cacheReadCost: null,
            cacheWrite5mCost: null,
            cacheWrite1hCost: null,
            outputCost: null,
            cost: null,
            compactions: 0,
            blockedCompactions: 0,
            failedTurns: 0,
          },
          costs: [null, null, null, null, null, null],
        };
        sums.set(session.scenario, entry);
      }
      const t = entry.totals;
      t.family ??= family;
      t.sessions += 1;
      t.requests += session.requests;
      t.summarizeRequests += session.summarizeRequests;
      t.rejectedOverflows += session.rejectedOverflows;
      t.promptTokens += session.promptTokens;
      t.cacheReadTokens += session.cacheReadTokens;
      t.cacheWrite5mTokens += session.cacheWrite5mTokens;
      t.cacheWrite1hTokens += session.cacheWrite1hTokens;
      t.uncachedInputTokens += session.uncachedInputTokens;
      t.outputTokens += session.outputTokens;
      t.peakContextTokens = Math.max(t.peakContextTokens, session.peakContextTokens);
      t.overflowRetries += session.overflowRetries;
      t.longContextRequests += session.longContextRequests;
      t.unpricedRequests += session.unpricedRequests;
      t.unpricedPromptTokens += session.unpricedPromptTokens;
      t.unpricedOutputTokens += session.unpricedOutputTokens;
      t.compactions += session.compactions;
      t.blockedCompactions += session.blockedCompactions;
      t.failedTurns += session.failedTurns;
      const c = entry.costs;
      c[0] = addNullable(c[0] ?? null, pico(session.inputCost));
      c[1] = addNullable(c[1] ?? null, pico(session.cacheReadCost));
      c[2] = addNullable(c[2] ?? null, pico(session.cacheWrite5mCost));
      c[3] = addNullable(c[3] ?? null, pico(session.cacheWrite1hCost));
      c[4] = addNullable(c[4] ?? null, pico(session.outputCost));
      c[5] = addNullable(c[5] ?? null, pico(session.cost));
    }
  }
  return [...sums.values()]
    .sort((a, b) => compareCodePoints(a.totals.scenario, b.totals.scenario))
    .map(({ totals: t, costs: c }) => ({
      ...t,
      sessions: safe(t.sessions),
      requests: safe(t.requests),
      summarizeRequests: safe(t.summarizeRequests),
      rejectedOverflows: safe(t.rejectedOverflows),
      promptTokens: safe(t.promptTokens),
      cacheReadTokens: safe(t.cacheReadTokens),
      cacheWrite5mTokens: safe(t.cacheWrite5mTokens),
      cacheWrite1hTokens: safe(t.cacheWrite1hTokens),
      uncachedInputTokens: safe(t.uncachedInputTokens),
      outputTokens: safe(t.outputTokens),
      overflowRetries: safe(t.overflowRetries),
      longContextRequests: safe(t.longContextRequests),
      unpricedRequests: safe(t.unpricedRequests),
      unpricedPromptTokens: safe(t.unpricedPromptTokens),
      unpricedOutputTokens: safe(t.unpricedOutputTokens),
      inputCost: money(c[0] ?? null),
      cacheReadCost: money(c[1] ?? null),
      cacheWrite5mCost: money(c[2] ?? null),
      cacheWrite1hCost: money(c[3] ?? null),
      outputCost: money(c[4] ?? null),
      cost: money(c[5] ?? null),
      compactions: safe(t.compactions),
      blockedCompactions: safe(t.blockedCompactions),
      failedTurns: safe(t.failedTurns),
    }));
}

/** `fidelity.sql` for one session, or null when no request pairs. */
function fidelityOf(sessionId: string, rows: FidelityRows): Fidelity | null {
  const recordedByIndex = new Map<number, FidelitySide[]>();
  for (const side of rows.recorded) {
    const list = recordedByIndex.get(side.index);
    if (list === undefined) recordedByIndex.set(side.index, [side]);
    else list.push(side);
  }
  let matched = 0;
  let measuredPrompt = 0;
  let recordedPrompt = 0;
  let measuredRead = 0;
  let recordedRead = 0;
  const measuredCost = new PicoSum();
  const recordedCost = new PicoSum();
  const requestErrors: number[] = [];
  const readErrors: number[] = [];
  for (const m of rows.measured) {
    const pairs = recordedByIndex.get(m.index);
    if (pairs === undefined) continue;
    for (const r of pairs) {
      matched += 1;
      measuredPrompt += m.prompt;
      recordedPrompt += r.prompt;
      measuredRead += m.read;
      recordedRead += r.read;
      if (m.cost !== null && r.cost !== null) {
        measuredCost.add(m.cost);
        recordedCost.add(r.cost);
      }
      if (m.prompt > 0) {
        requestErrors.push((100 * Math.abs(r.prompt - m.prompt)) / m.prompt);
        readErrors.push((100 * Math.abs(r.read - m.read)) / m.prompt);
      }
    }
  }
  if (matched === 0) return null;
  const measured = measuredCost.value();
  const recorded = recordedCost.value();
  const measuredPromptTokens = safe(measuredPrompt);
  const recordedPromptTokens = safe(recordedPrompt);
  return {
    sessionId,
    matchedRequests: matched,
    measuredPromptTokens,
    recordedPromptTokens,
    promptTokensErrorPct:
      measuredPromptTokens > 0
        ? pctOf(BigInt(recordedPromptTokens - measuredPromptTokens), BigInt(measuredPromptTokens))
        : null,
    measuredCacheReadTokens: safe(measuredRead),
    recordedCacheReadTokens: safe(recordedRead),
    measuredCost: money(measured),
    recordedCost: money(recorded),
    costErrorPct: measured !== null && recorded !== null && measured > 0n ? pctOf(recorded - measured, measured) : null,
    medianRequestErrorPct: continuousMedian(Float64Array.from(requestErrors)),
    medianCacheReadErrorPct: continuousMedian(Float64Array.from(readErrors)),
  };
}

/**
 * Folds `simulate`'s rows (requests, compactions, sessions, in any order and any number of calls)
 * into the summary the SQL views give over the same rows loaded into `CostDb`.
 */
export class SummaryAggregator {
  private readonly groups = new Map<string, Map<string, RequestGroup>>();
  private readonly compactions = new Map<string, Map<string, { compactions: number; blocked: number }>>();
  private readonly sessions = new Map<string, Map<string, SessionRow[]>>();
  private readonly fidelityRows = new Map<string, FidelityRows>();
  private readonly unpriced = new Map<string, Map<string, UnpricedGroup>>();
  private readonly families = new Map<string, string[]>();
  private last: RequestGroup | null = null;

  constructor(
    private readonly prices: PriceTable,
    scenarios: readonly ScenarioRow[],
  ) {
    for (const scenario of scenarios) {
      const list = this.families.get(scenario.name);
      if (list === undefined) this.families.set(scenario.name, [scenario.family]);
      else list.push(scenario.family);
    }
  }

  /** Adds request rows; a billed row whose classes do not sum to its prompt throws (the table's CHECK). */
  addRequests(rows: readonly RequestRow[]): void {
    for (const row of rows) this.addRequest(row);
  }

  addCompactions(rows: readonly CompactionRow[]): void {
    for (const row of rows) {
      const counts = byKey(this.compactions, row.session_id, row.scenario, () => ({ compactions: 0, blocked: 0 }));
      if (row.hook_blocked) counts.blocked += 1;
      else counts.compactions += 1;
    }
  }

  addSessions(rows: readonly SessionRow[]): void {
    for (const row of rows) byKey(this.sessions, row.session_id, row.scenario, () => [] as SessionRow[]).push(row);
  }

  private groupOf(row: RequestRow): RequestGroup {
    const last = this.last;
    if (last !== null && last.sessionId === row.session_id && last.scenario === row.scenario) return last;
    const group = byKey(
      this.groups,
      row.session_id,
      row.scenario,
      () => new RequestGroup(row.session_id, row.scenario, row.source),
    );
    this.last = group;
    return group;
  }

  private addRequest(row: RequestRow): void {
    const group = this.groupOf(row);
    group.models.add(row.model);
    group.overflowRetries += row.overflow_retries;
    if (row.kind === 'rejected_overflow') {
      group.rejectedOverflows += 1;
      // Counted, not billed: a cost of 0, so the session's cost is not NULL for it.
      const notBilled = priceRequest(row, null);
      if (notBilled !== null) group.addCost(notBilled);
      return;
    }
    if (
      row.prompt_tokens !==
      row.cache_read_tokens + row.cache_write_5m_tokens + row.cache_write_1h_tokens + row.uncached_input_tokens
    ) {
      throw new Error(
        `invariant: request ${row.request_index} of session ${row.session_id} (${row.scenario}): its prompt is not the sum of its classes`,
      );
    }
    if (row.kind === 'request') {
      group.requests += 1;
      if (row.context_tokens_after > group.peakContextTokens) group.peakContextTokens = row.context_tokens_after;
    } else group.summarizeRequests += 1;
    group.promptTokens += row.prompt_tokens;
    group.cacheReadTokens += row.cache_read_tokens;
    group.cacheWrite5mTokens += row.cache_write_5m_tokens;
    group.cacheWrite1hTokens += row.cache_write_1h_tokens;
    group.uncachedInputTokens += row.uncached_input_tokens;
    group.outputTokens += row.output_tokens;
    // The model's price id (`model_names.price_id`), null = unknown.
    const id = modelIdOf(this.prices, row.model);
    const price: ModelPrice | null = id === null ? null : priceAt(this.prices, id, row.timestamp_ms);
    const cost = priceRequest(row, price);
    if (cost === null) {
      group.unpricedRequests += 1;
      group.unpricedPromptTokens += row.prompt_tokens;
      group.unpricedOutputTokens += row.output_tokens;
      const reason: UnpricedModel['reason'] =
        id === null ? 'unknown model' : price === null ? 'no price at that date' : 'no rate for a used cache class';
      const unpriced = byKey(this.unpriced, row.model, reason, () => ({
        model: row.model,
        reason,
        requests: 0,
        prompt: 0,
        output: 0,
      }));
      unpriced.requests += 1;
      unpriced.prompt += row.prompt_tokens;
      unpriced.output += row.output_tokens;
    } else {
      group.addCost(cost);
      if (cost.longContext) group.longContextRequests += 1;
    }
    if (row.kind === 'request' && row.modelled) {
      const scenario = row.scenario;
      if (scenario === MEASURED_SCENARIO || scenario === RECORDED_SCENARIO) {
        let sides = this.fidelityRows.get(row.session_id);
        if (sides === undefined) {
          sides = { measured: [], recorded: [] };
          this.fidelityRows.set(row.session_id, sides);
        }
        (scenario === MEASURED_SCENARIO ? sides.measured : sides.recorded).push({
          index: row.request_index,
          prompt: row.prompt_tokens,
          read: row.cache_read_tokens,
          cost: cost === null ? null : cost.totalPicoUsd,
        });
      }
    }
  }

  /** The summary of every row added so far. */
  summary(): SimulateSummary {
    const sessionCosts = this.sessionCosts();
    const scenarioCosts = scenarioCostsOf(sessionCosts, this.families);
    const base = (level: readonly (SessionCost | ScenarioCost)[], session: boolean): SavingBase[] =>
      level.map((c) => ({
        sessionId: session && 'sessionId' in c ? c.sessionId : null,
        scenario: c.scenario,
        promptTokens: c.promptTokens,
        cost: pico(c.cost),
        unpricedRequests: c.unpricedRequests,
      }));
    const fidelity: Fidelity[] = [];
    for (const sessionId of [...this.fidelityRows.keys()].sort(compareCodePoints)) {
      const rows = this.fidelityRows.get(sessionId);
      const f = rows === undefined ? null : fidelityOf(sessionId, rows);
      if (f !== null) fidelity.push(f);
    }
    const unpricedModels: UnpricedModel[] = [];
    for (const [, , u] of sortedByKeys(this.unpriced))
      unpricedModels.push({
        model: u.model,
        reason: u.reason,
        requests: u.requests,
        promptTokens: safe(u.prompt),
        outputTokens: safe(u.output),
      });
    return {
      sessionCosts,
      sessionSavings: savingsOf(base(sessionCosts, true)),
      scenarioCosts,
      scenarioSavings: savingsOf(base(scenarioCosts, false)),
      fidelity,
      unpricedModels,
    };
  }

  /** `session_costs.sql`, ordered by session and scenario. */
  private sessionCosts(): SessionCost[] {
    const out: SessionCost[] = [];
    for (const [sessionId, scenario, g] of sortedByKeys(this.groups)) {
      const comp = this.compactions.get(sessionId)?.get(scenario);
      const joined: readonly (SessionRow | null)[] = this.sessions.get(sessionId)?.get(scenario) ?? [null];
      for (const s of joined) {
        out.push({
          sessionId,
          scenario,
          source: g.source,
          models: [...g.models].sort(compareCodePoints),
          flags: s === null ? [] : [...s.flags],
          fidelityNote: s?.fidelity_note ?? null,
          requests: g.requests,
          summarizeRequests: g.summarizeRequests,
          rejectedOverflows: g.rejectedOverflows,
          promptTokens: safe(g.promptTokens),
          cacheReadTokens: safe(g.cacheReadTokens),
          cacheWrite5mTokens: safe(g.cacheWrite5mTokens),
          cacheWrite1hTokens: safe(g.cacheWrite1hTokens),
          uncachedInputTokens: safe(g.uncachedInputTokens),
          outputTokens: safe(g.outputTokens),
          peakContextTokens: g.peakContextTokens,
          overflowRetries: safe(g.overflowRetries),
          longContextRequests: g.longContextRequests,
          unpricedRequests: g.unpricedRequests,
          unpricedPromptTokens: safe(g.unpricedPromptTokens),
          unpricedOutputTokens: safe(g.unpricedOutputTokens),
          inputCost: money(g.input.value()),
          cacheReadCost: money(g.read.value()),
          cacheWrite5mCost: money(g.write5m.value()),
          cacheWrite1hCost: money(g.write1h.value()),
          outputCost: money(g.output.value()),
          cost: money(g.cost.value()),
          compactions: comp?.compactions ?? 0,
          blockedCompactions: comp?.blocked ?? 0,
          failedTurns: s?.failed_turns ?? 0,
        });
      }
    }
    return out;
  }
}
