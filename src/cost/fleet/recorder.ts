/**
 * Collects one run's rows for the fleet tables (`sql/fleet_schema.sql`): the cost tables already
 * hold the requests and compactions; this adds each session's facts, its items (ids and sizes,
 * text only when asked) and the flags, then fills the typed tables in schema `fleet` with
 * `sql/fleet_fill.sql`. Writing them out (Parquet, a DuckDB file) is `write-parquet.ts` and
 * `append-db.ts`.
 */
import type { DuckDBAppender } from '@duckdb/node-api';
import type { CostDb } from '../db.js';
import { readSqlFile } from '../db.js';
import type { IngestIssue, Session } from '../../session/model.js';
import { isIngestNote } from '../../session/ingest-note.js';

/** The fleet tables, in the order they are filled and written. */
export const FLEET_TABLES = [
  'runs',
  'requests',
  'sessions',
  'compactions',
  'replays',
  'flags',
  'items',
  'tune_points',
] as const;
export type FleetTable = (typeof FLEET_TABLES)[number];

/** What the replay found out about a session, as the `simulate` report prints it. */
export type ReplayFacts = {
  /** The model of most requests. */
  readonly model: string;
  readonly recordedPolicy: string;
  readonly charsPerToken: number;
  readonly staticBlockTokens: number;
  readonly fidelityNote: string | null;
};

/** What the run knows about a session besides its log: its replay's facts, null when not replayed. */
export type SessionFacts = { readonly replay: ReplayFacts | null };

/** One replayed scenario of a session: what the report needs beyond request and compaction rows. */
export type FleetReplayRow = {
  readonly sessionId: string;
  readonly scenario: string;
  readonly failedTurns: number;
  /** Kinds of the flags raised under the scenario, in detection order. */
  readonly flags: readonly string[];
};

/** A measured request that is sub-agent traffic of its session. */
export type FleetAgentRow = { readonly sessionId: string; readonly requestIndex: number; readonly agentId: string };

/** The `runs` row of a run, as plain values (the use case gathers them; the CLI reads clock and host). */
export type FleetRunRow = {
  readonly runId: string;
  /** A Hive partition value: a safe path segment (checked by the caller). */
  readonly host: string;
  readonly command: string;
  readonly cachecostVersion: string;
  readonly priceTableDate: string | null;
  readonly pricingFile: string | null;
  readonly inputs: readonly string[];
  readonly scenariosJson: string;
  readonly thresholdsJson: string | null;
  readonly withText: boolean;
  readonly startedAtMs: number;
  /** Sessions read, for a run that stages no session rows (tune); null = the sessions staged. */
  readonly sessions?: number | null;
};

/** One point of a tune sweep; money in exact pico-dollars. */
export type FleetTunePointRow = {
  readonly modelGroup: string | null;
  readonly scenario: string;
  readonly family: string;
  readonly series: string | null;
  readonly targetTokens: number | null;
  readonly bufferTokens: number;
  readonly preserveRecentTurns: number;
  readonly ttl: string;
  readonly sessions: number;
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly uncachedInputTokens: number;
  readonly outputTokens: number;
  readonly compactions: number;
  readonly unpricedRequests: number;
  readonly costPicoUsd: bigint | null;
  readonly savingVsRecordedPicoUsd: bigint | null;
  readonly knee: boolean;
  readonly recommended: boolean;
};

/** One flag as the `flags` table holds it; the stake in exact pico-dollars. */
export type FleetFlagRow = {
  readonly sessionId: string;
  readonly scenario: string;
  readonly kind: string;
  readonly severity: string;
  readonly basis: string;
  readonly firstRequestIndex: number;
  readonly lastRequestIndex: number;
  readonly evidenceJson: string;
  readonly summary: string;
  readonly stake: 'priced' | 'unpriced' | 'none';
  readonly stakePicoUsd: bigint | null;
  readonly stakeAgainst: string | null;
  readonly stakeReason: string | null;
};

/** Distinct models of a session's requests in order of first use. */
function modelsOf(session: Session): string[] {
  return [...new Set(session.requests.map((request) => request.model))];
}

function wholeMs(ms: number | null): bigint | null {
  return ms === null || !Number.isFinite(ms) ? null : BigInt(Math.floor(ms));
}

function timeRange(session: Session): { first: number | null; last: number | null } {
  let first: number | null = null;
  let last: number | null = null;
  const see = (ms: number | null): void => {
    if (ms === null || !Number.isFinite(ms)) return;
    if (first === null || ms < first) first = ms;
    if (last === null || ms > last) last = ms;
  };
  for (const request of session.requests) see(request.timestampMs);
  for (const item of session.items) see(item.timestampMs);
  return { first, last };
}

/** Creates schema `fleet` with the fleet tables in the database's memory catalog. */
export async function createFleetSchema(db: CostDb): Promise<void> {
  await db.query('CREATE SCHEMA IF NOT EXISTS memory.fleet');
  await db.query('USE memory.fleet');
  try {
    await db.query(await readSqlFile('fleet_schema'));
  } finally {
    await db.query('USE memory.main');
  }
}

export class FleetRecorder {
  private constructor(
    private readonly db: CostDb,
    private readonly run: FleetRunRow,
    private readonly sessions: DuckDBAppender,
    private readonly items: DuckDBAppender,
    private readonly flags: DuckDBAppender,
    private readonly replays: DuckDBAppender,
    private readonly agents: DuckDBAppender,
  ) {}

  /** Stages tables on an open cost database (with the bill's side tables already created). */
  static async open(db: CostDb, run: FleetRunRow): Promise<FleetRecorder> {
    await db.query(await readSqlFile('fleet_staging'));
    await createFleetSchema(db);
    return new FleetRecorder(
      db,
      run,
      await db.appender('x_sessions'),
      await db.appender('x_items'),
      await db.appender('x_flags'),
      await db.appender('x_replays'),
      await db.appender('x_agents'),
    );
  }

  /** A session's facts and its items (text only when the run exports text). */
  addSession(session: Session, facts: SessionFacts): void {
    const { LIST, VARCHAR } = this.db.duckApi();
    const a = this.sessions;
    const { first, last } = timeRange(session);
    const nullableText = (appender: DuckDBAppender, value: string | null): void => {
      if (value === null) appender.appendNull();
      else appender.appendVarchar(value);
    };
    const nullableBigint = (appender: DuckDBAppender, value: bigint | null): void => {
      if (value === null) appender.appendNull();
      else appender.appendBigInt(value);
    };
    a.appendVarchar(session.id);
    a.appendVarchar(session.source);
    nullableText(a, session.project);
    nullableText(a, session.parentSessionId);
    nullableBigint(a, wholeMs(first));
    nullableBigint(a, wholeMs(last));
    a.appendList(modelsOf(session), LIST(VARCHAR));
    a.appendBigInt(BigInt(session.requests.length));
    a.appendBigInt(BigInt(session.requests.filter((request) => request.usage === null).length));
    a.appendBoolean(session.totalsOnly !== null && session.requests.every((request) => request.usage === null));
    a.appendBigInt(BigInt(session.items.length));
    a.appendBigInt(BigInt(session.items.reduce((sum, item) => sum + item.chars, 0)));
    a.appendBigInt(BigInt(session.events.filter((event) => event.kind === 'compaction').length));
    const replay = facts.replay;
    a.appendBoolean(replay !== null);
    nullableText(a, replay?.fidelityNote ?? null);
    nullableText(a, replay?.model ?? null);
    nullableText(a, replay?.recordedPolicy ?? null);
    if (replay === null) a.appendNull();
    else a.appendDouble(replay.charsPerToken);
    nullableBigint(a, replay === null ? null : BigInt(replay.staticBlockTokens));
    a.endRow();

    for (const request of session.requests) {
      if (request.agentId === null) continue;
      this.agents.appendVarchar(session.id);
      this.agents.appendInteger(request.index);
      this.agents.appendVarchar(request.agentId);
      this.agents.endRow();
    }

    const i = this.items;
    session.items.forEach((item, index) => {
      i.appendVarchar(session.id);
      i.appendInteger(index);
      i.appendVarchar(item.id);
      i.appendVarchar(item.kind);
      nullableBigint(i, wholeMs(item.timestampMs));
      i.appendBigInt(BigInt(item.chars));
      i.appendInteger(item.imageParts);
      i.appendBigInt(BigInt(item.imageChars));
      nullableText(i, item.kind === 'tool_result' ? item.callId : null);
      nullableText(i, item.kind === 'tool_result' ? item.toolName : null);
      // Message text leaves the machine only when asked (--with-text); ids and sizes always do.
      nullableText(i, this.run.withText ? item.text : null);
      i.endRow();
    });
  }

  /** The replayed scenarios of a session (none when it was not replayed). */
  addReplays(rows: readonly FleetReplayRow[]): void {
    const { LIST, VARCHAR } = this.db.duckApi();
    const p = this.replays;
    for (const row of rows) {
      p.appendVarchar(row.sessionId);
      p.appendVarchar(row.scenario);
      p.appendInteger(row.failedTurns);
      p.appendList([...row.flags], LIST(VARCHAR));
      p.endRow();
    }
  }

  addFlags(flags: readonly FleetFlagRow[]): void {
    const f = this.flags;
    const text = (value: string | null): void => {
      if (value === null) f.appendNull();
      else f.appendVarchar(value);
    };
    for (const flag of flags) {
      f.appendVarchar(flag.sessionId);
      f.appendVarchar(flag.scenario);
      f.appendVarchar(flag.kind);
      f.appendVarchar(flag.severity);
      f.appendVarchar(flag.basis);
      f.appendInteger(flag.firstRequestIndex);
      f.appendInteger(flag.lastRequestIndex);
      f.appendVarchar(flag.evidenceJson);
      f.appendVarchar(flag.summary);
      f.appendVarchar(flag.stake);
      text(flag.stakePicoUsd === null ? null : flag.stakePicoUsd.toString());
      text(flag.stakeAgainst);
      text(flag.stakeReason);
      f.endRow();
    }
  }

  /** Stages the points of a tune sweep. */
  async addTunePoints(points: readonly FleetTunePointRow[]): Promise<void> {
    const t = await this.db.appender('x_tune_points');
    const text = (value: string | null): void => {
      if (value === null) t.appendNull();
      else t.appendVarchar(value);
    };
    const big = (value: number): void => t.appendBigInt(BigInt(value));
    for (const p of points) {
      text(p.modelGroup);
      t.appendVarchar(p.scenario);
      t.appendVarchar(p.family);
      text(p.series);
      if (p.targetTokens === null) t.appendNull();
      else big(p.targetTokens);
      big(p.bufferTokens);
      t.appendInteger(p.preserveRecentTurns);
      t.appendVarchar(p.ttl);
      for (const n of [
        p.sessions,
        p.requests,
        p.promptTokens,
        p.cacheReadTokens,
        p.cacheWrite5mTokens,
        p.cacheWrite1hTokens,
      ])
        big(n);
      for (const n of [p.uncachedInputTokens, p.outputTokens, p.compactions, p.unpricedRequests]) big(n);
      text(p.costPicoUsd === null ? null : p.costPicoUsd.toString());
      text(p.savingVsRecordedPicoUsd === null ? null : p.savingVsRecordedPicoUsd.toString());
      t.appendBoolean(p.knee);
      t.appendBoolean(p.recommended);
      t.endRow();
    }
    t.closeSync();
  }

  /** Closes the staging appenders and fills the `fleet` tables with this run's rows; `issues` = the run's ingest issues. */
  async finish(issues: readonly IngestIssue[]): Promise<void> {
    // Notes (requests without usage, resumed copies) are not problems with the input.
    const ingestIssues = issues.filter((issue) => !isIngestNote(issue)).length;
    this.sessions.closeSync();
    this.items.closeSync();
    this.flags.closeSync();
    this.replays.closeSync();
    this.agents.closeSync();
    const { LIST, VARCHAR } = this.db.duckApi();
    const run = this.run;
    const r = await this.db.appender('x_run');
    r.appendVarchar(run.runId);
    r.appendVarchar(run.host);
    r.appendVarchar(run.command);
    r.appendVarchar(run.cachecostVersion);
    if (run.priceTableDate === null) r.appendNull();
    else r.appendVarchar(run.priceTableDate);
    if (run.pricingFile === null) r.appendNull();
    else r.appendVarchar(run.pricingFile);
    r.appendList([...run.inputs], LIST(VARCHAR));
    r.appendVarchar(run.scenariosJson);
    if (run.thresholdsJson === null) r.appendNull();
    else r.appendVarchar(run.thresholdsJson);
    r.appendBoolean(run.withText);
    r.appendBigInt(BigInt(ingestIssues));
    r.appendBigInt(BigInt(Math.floor(run.startedAtMs)));
    if (run.sessions === undefined || run.sessions === null) r.appendNull();
    else r.appendBigInt(BigInt(run.sessions));
    r.endRow();
    r.closeSync();
    await this.db.query(await readSqlFile('fleet_fill'));
  }
}
