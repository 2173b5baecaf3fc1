/**
 * Rows of the DuckDB tables (replay.md §8), as the replay emits them. Property names are the
 * column names (snake_case) so rows, tables and CSV files share one vocabulary; each `*_COLUMNS`
 * list fixes the column order of the table and of its CSV export. Columns are documented in
 * `src/cost/README.md`.
 */

export const REQUEST_KINDS = ['request', 'summarize', 'rejected_overflow'] as const;
/** `rejected_overflow`: refused by the provider for its size; counted, never billed. */
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** One provider request under one scenario. For billed kinds `prompt = read + write5m + write1h + uncached`. */
export type RequestRow = {
  readonly session_id: string;
  readonly source: string;
  readonly model: string;
  readonly scenario: string;
  /** Index of the log request this row belongs to (a summarize or rejected row: the request it was made for). */
  readonly request_index: number;
  readonly timestamp_ms: number | null;
  readonly kind: RequestKind;
  readonly prompt_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_5m_tokens: number;
  readonly cache_write_1h_tokens: number;
  readonly uncached_input_tokens: number;
  readonly output_tokens: number;
  /** Context held after the request (its prompt plus its output). */
  readonly context_tokens_after: number;
  readonly compaction_before: boolean;
  readonly overflow_retries: number;
  /**
   * Whether the fidelity compares this row (replay.md §6): a request the replay models, i.e. a
   * main-agent request with measured usage (`isModelledRequest`), on both its `measured` and its
   * `recorded` row. Side requests passed through as measured and unmeasured requests are not.
   */
  readonly modelled: boolean;
};

export const REQUEST_COLUMNS = [
  'session_id',
  'source',
  'model',
  'scenario',
  'request_index',
  'timestamp_ms',
  'kind',
  'prompt_tokens',
  'cache_read_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'uncached_input_tokens',
  'output_tokens',
  'context_tokens_after',
  'compaction_before',
  'overflow_retries',
  'modelled',
] as const satisfies readonly (keyof RequestRow)[];

export const COMPACTION_TRIGGERS = ['threshold', 'overflow', 'manual', 'recorded'] as const;
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];

/** One compaction (or a compaction a hook blocked). "After" fields are null when it did not complete. */
export type CompactionRow = {
  readonly session_id: string;
  readonly scenario: string;
  /** The request the compaction preceded. */
  readonly request_index: number;
  readonly trigger: CompactionTrigger;
  /** Prompt size as the provider counts it. */
  readonly prompt_tokens_before: number;
  readonly prompt_tokens_after: number | null;
  /** FreeCode's own estimate (`ceil(chars / 4)`); `compact.occurred` records only the "after" (engine.md §6.6). */
  readonly estimate_tokens_before: number;
  readonly estimate_tokens_after: number | null;
  readonly messages_before: number;
  readonly messages_after: number | null;
  readonly summary_tokens: number | null;
  readonly hook_blocked: boolean;
};

export const COMPACTION_COLUMNS = [
  'session_id',
  'scenario',
  'request_index',
  'trigger',
  'prompt_tokens_before',
  'prompt_tokens_after',
  'estimate_tokens_before',
  'estimate_tokens_after',
  'messages_before',
  'messages_after',
  'summary_tokens',
  'hook_blocked',
] as const satisfies readonly (keyof CompactionRow)[];

/**
 * Facts about one session under one scenario that its requests do not carry. Measured usage is
 * not here: the replay inserts it as request rows of scenario `measured`, so the bill is priced
 * per request by the same SQL (long-context tier, date windows) and `fidelity.sql` compares it
 * with `recorded` request by request.
 */
export type SessionRow = {
  readonly session_id: string;
  readonly source: string;
  readonly models: readonly string[];
  readonly scenario: string;
  /** Turns that ended because a request still did not fit after the overflow retries. */
  readonly failed_turns: number;
  /** Why fidelity is poor, when known (missing content, unknown model, unlogged summarizer call). */
  readonly fidelity_note: string | null;
  /** Detector flags (placeholder until the detectors land). */
  readonly flags: readonly string[];
};

export const SESSION_COLUMNS = [
  'session_id',
  'source',
  'models',
  'scenario',
  'failed_turns',
  'fidelity_note',
  'flags',
] as const satisfies readonly (keyof SessionRow)[];

/** A named, serializable scenario (replay.md §7). `measured` (the bill), `recorded` and `none` are the baselines. */
export type ScenarioRow = {
  readonly name: string;
  readonly family: string;
  readonly params_json: string;
};

export const SCENARIO_COLUMNS = ['name', 'family', 'params_json'] as const satisfies readonly (keyof ScenarioRow)[];

/** Scenario names the reports compare against. */
export const MEASURED_SCENARIO = 'measured';
export const RECORDED_SCENARIO = 'recorded';
export const NONE_SCENARIO = 'none';
