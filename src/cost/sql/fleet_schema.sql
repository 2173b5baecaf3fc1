-- The fleet tables: what `cachecost export` writes as Parquet (Hive-partitioned by host and date)
-- and what `--db FILE` accumulates, one run after another. Plain column types any Parquet reader
-- knows: money DECIMAL(38,12) USD (exact: every cost is a whole number of pico-dollars), tokens
-- BIGINT, times TIMESTAMP (UTC, no zone), dates DATE (UTC). No message text unless `--with-text`.
-- Run with the target catalog as the default (`USE`), so the names stay unqualified.

CREATE TABLE IF NOT EXISTS runs (
  host               VARCHAR NOT NULL,
  date               DATE NOT NULL,
  run_id             VARCHAR NOT NULL,
  command            VARCHAR NOT NULL,
  cachecost_version  VARCHAR NOT NULL,
  price_table_date   VARCHAR,
  pricing_file       VARCHAR,
  inputs             VARCHAR[] NOT NULL,
  scenarios_json     VARCHAR NOT NULL,
  thresholds_json    VARCHAR,
  with_text          BOOLEAN NOT NULL,
  sessions           BIGINT NOT NULL,
  requests           BIGINT NOT NULL,
  ingest_issues      BIGINT NOT NULL,
  started_at         TIMESTAMP NOT NULL
);
COMMENT ON TABLE runs IS 'One row per cachecost run that wrote rows (export, or --db on report/simulate/flags/tune); every other table names its run in run_id.';
COMMENT ON COLUMN runs.host IS 'Machine name (the OS host name or the --host label); Hive partition key.';
COMMENT ON COLUMN runs.date IS 'UTC date of started_at; Hive partition key.';
COMMENT ON COLUMN runs.run_id IS 'Unique id of the run (a UUID unless given).';
COMMENT ON COLUMN runs.command IS 'The command that ran: export, report, simulate, flags or tune.';
COMMENT ON COLUMN runs.cachecost_version IS 'Version of cachecost that wrote the rows.';
COMMENT ON COLUMN runs.price_table_date IS 'Latest source date (YYYY-MM-DD) among the prices in force; NULL when the table is empty.';
COMMENT ON COLUMN runs.pricing_file IS 'The --pricing file overlaid on the bundled prices, as given; NULL = bundled prices only.';
COMMENT ON COLUMN runs.inputs IS 'Log paths read, absolute, as given on the command line or found by default.';
COMMENT ON COLUMN runs.scenarios_json IS 'JSON array of the scenarios replayed, each {name, family, params}; [] when nothing was replayed.';
COMMENT ON COLUMN runs.thresholds_json IS 'JSON object of the flag thresholds in force; NULL when no flags were computed.';
COMMENT ON COLUMN runs.with_text IS 'Whether message text was exported (--with-text).';
COMMENT ON COLUMN runs.sessions IS 'Sessions read (count).';
COMMENT ON COLUMN runs.requests IS 'Request rows written by the run, all scenarios (count).';
COMMENT ON COLUMN runs.ingest_issues IS 'Skipped or invalid input lines the run counted (count).';
COMMENT ON COLUMN runs.started_at IS 'When the run started (UTC).';

CREATE TABLE IF NOT EXISTS requests (
  host                           VARCHAR NOT NULL,
  date                           DATE,
  run_id                         VARCHAR NOT NULL,
  session_id                     VARCHAR NOT NULL,
  source                         VARCHAR NOT NULL,
  project                        VARCHAR,
  model                          VARCHAR NOT NULL,
  scenario                       VARCHAR NOT NULL,
  request_index                  INTEGER NOT NULL,
  seq                            BIGINT NOT NULL,
  timestamp                      TIMESTAMP,
  kind                           VARCHAR NOT NULL,
  prompt_tokens                  BIGINT NOT NULL,
  cache_read_tokens              BIGINT NOT NULL,
  cache_write_5m_tokens          BIGINT NOT NULL,
  cache_write_1h_tokens          BIGINT NOT NULL,
  cache_write_unknown_ttl_tokens BIGINT NOT NULL,
  uncached_input_tokens          BIGINT NOT NULL,
  output_tokens                  BIGINT NOT NULL,
  context_tokens_after           BIGINT NOT NULL,
  compaction_before              BOOLEAN NOT NULL,
  overflow_retries               INTEGER NOT NULL,
  price_id                       VARCHAR,
  long_context                   BOOLEAN NOT NULL,
  unpriced                       BOOLEAN NOT NULL,
  cost_input_usd                 DECIMAL(38, 12),
  cost_cache_read_usd            DECIMAL(38, 12),
  cost_cache_write_5m_usd        DECIMAL(38, 12),
  cost_cache_write_1h_usd        DECIMAL(38, 12),
  cost_output_usd                DECIMAL(38, 12),
  cost_usd                       DECIMAL(38, 12),
  agent_id                       VARCHAR,
  modelled                       BOOLEAN
);
-- Columns added after the first layout: a --db file written before them gains them here.
ALTER TABLE requests ADD COLUMN IF NOT EXISTS agent_id VARCHAR;
ALTER TABLE requests ADD COLUMN IF NOT EXISTS modelled BOOLEAN;
COMMENT ON TABLE requests IS 'One row per provider request per scenario: measured (the bill, from the log''s usage) and, when replayed, each simulated scenario. Priced on the machine that wrote it.';
COMMENT ON COLUMN requests.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN requests.date IS 'UTC date of timestamp; Hive partition key; NULL when the log gave no time.';
COMMENT ON COLUMN requests.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN requests.session_id IS 'Session id as the agent logged it.';
COMMENT ON COLUMN requests.source IS 'Log format: freecode, claude-code, codex, opencode, openhands or swe-agent.';
COMMENT ON COLUMN requests.project IS 'The session''s project (working directory) when the log gives one.';
COMMENT ON COLUMN requests.model IS 'Model name as logged.';
COMMENT ON COLUMN requests.scenario IS 'measured (the bill), recorded (replay of the logged policy), none, or a simulated scenario such as freecode@120000.';
COMMENT ON COLUMN requests.request_index IS 'Index of the log request the row belongs to (a summarize or rejected row: the request it was made for).';
COMMENT ON COLUMN requests.seq IS 'Order of the row within its run (replay order).';
COMMENT ON COLUMN requests.timestamp IS 'When the request was made (UTC); NULL when the log gave no time.';
COMMENT ON COLUMN requests.kind IS 'request, summarize (a compaction''s own call) or rejected_overflow (refused for size: counted, never billed).';
COMMENT ON COLUMN requests.prompt_tokens IS 'Tokens: whole prompt = uncached + cache read + cache writes (for a rejected row, the refused size).';
COMMENT ON COLUMN requests.cache_read_tokens IS 'Tokens read from the prompt cache.';
COMMENT ON COLUMN requests.cache_write_5m_tokens IS 'Tokens written to the cache at the 5-minute rate (includes cache_write_unknown_ttl_tokens).';
COMMENT ON COLUMN requests.cache_write_1h_tokens IS 'Tokens written to the cache at the 1-hour rate.';
COMMENT ON COLUMN requests.cache_write_unknown_ttl_tokens IS 'Tokens: the part of cache_write_5m_tokens whose TTL the log did not give (priced at the 5-minute rate).';
COMMENT ON COLUMN requests.uncached_input_tokens IS 'Prompt tokens neither read from nor written to the cache.';
COMMENT ON COLUMN requests.output_tokens IS 'Output tokens (reasoning included).';
COMMENT ON COLUMN requests.context_tokens_after IS 'Tokens of context held after the request (prompt + output).';
COMMENT ON COLUMN requests.compaction_before IS 'Whether a compaction ran just before this request.';
COMMENT ON COLUMN requests.overflow_retries IS 'Rejected sends before this row (count).';
COMMENT ON COLUMN requests.price_id IS 'Price-table entry the model resolved to; NULL = unknown model.';
COMMENT ON COLUMN requests.long_context IS 'Whether the long-context tier priced this request.';
COMMENT ON COLUMN requests.unpriced IS 'Whether the request is left out of every cost (no price for its model, date or a used cache class).';
COMMENT ON COLUMN requests.cost_input_usd IS 'USD, exact: uncached input tokens x rate; NULL when unpriced (never 0 for unknown).';
COMMENT ON COLUMN requests.cost_cache_read_usd IS 'USD, exact: cache-read tokens x rate; NULL when unpriced.';
COMMENT ON COLUMN requests.cost_cache_write_5m_usd IS 'USD, exact: 5-minute cache writes x rate; NULL when unpriced.';
COMMENT ON COLUMN requests.cost_cache_write_1h_usd IS 'USD, exact: 1-hour cache writes x rate; NULL when unpriced.';
COMMENT ON COLUMN requests.cost_output_usd IS 'USD, exact: output tokens x rate; NULL when unpriced.';
COMMENT ON COLUMN requests.cost_usd IS 'USD, exact: the request''s whole cost (0 for a rejected overflow); NULL when unpriced.';
COMMENT ON COLUMN requests.agent_id IS 'Sub-agent (or sidechain) id of a request that is sub-agent traffic of its session; NULL for the main agent and for summarize and rejected rows.';
COMMENT ON COLUMN requests.modelled IS 'Whether the replay models this request, so the recorded replay''s fidelity compares it (replay.md §6); NULL only in exports written before the column existed.';

CREATE TABLE IF NOT EXISTS sessions (
  host                   VARCHAR NOT NULL,
  date                   DATE,
  run_id                 VARCHAR NOT NULL,
  session_id             VARCHAR NOT NULL,
  source                 VARCHAR NOT NULL,
  project                VARCHAR,
  parent_session_id      VARCHAR,
  first_timestamp        TIMESTAMP,
  last_timestamp         TIMESTAMP,
  models                 VARCHAR[] NOT NULL,
  requests               BIGINT NOT NULL,
  requests_without_usage BIGINT NOT NULL,
  totals_only            BOOLEAN NOT NULL,
  items                  BIGINT NOT NULL,
  item_chars             BIGINT NOT NULL,
  compactions_logged     BIGINT NOT NULL,
  replayed               BOOLEAN NOT NULL,
  fidelity_note          VARCHAR,
  model                  VARCHAR,
  recorded_policy        VARCHAR,
  chars_per_token        DOUBLE,
  static_block_tokens    BIGINT
);
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS model VARCHAR;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS recorded_policy VARCHAR;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS chars_per_token DOUBLE;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS static_block_tokens BIGINT;
COMMENT ON TABLE sessions IS 'One row per session read.';
COMMENT ON COLUMN sessions.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN sessions.date IS 'UTC date of first_timestamp; Hive partition key; NULL when the log gave no time.';
COMMENT ON COLUMN sessions.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN sessions.session_id IS 'Session id as the agent logged it.';
COMMENT ON COLUMN sessions.source IS 'Log format.';
COMMENT ON COLUMN sessions.project IS 'Project (working directory) when the log gives one.';
COMMENT ON COLUMN sessions.parent_session_id IS 'The session this one was forked or spawned from, when known.';
COMMENT ON COLUMN sessions.first_timestamp IS 'Earliest request or item time (UTC).';
COMMENT ON COLUMN sessions.last_timestamp IS 'Latest request or item time (UTC).';
COMMENT ON COLUMN sessions.models IS 'Distinct models of its requests, in order of first use.';
COMMENT ON COLUMN sessions.requests IS 'Provider requests in the log (count).';
COMMENT ON COLUMN sessions.requests_without_usage IS 'Requests whose usage the log did not record: not in the bill (count).';
COMMENT ON COLUMN sessions.totals_only IS 'The log holds session totals only (SWE-agent): no request rows, not in the bill.';
COMMENT ON COLUMN sessions.items IS 'Messages, tool calls and tool results in the session (count).';
COMMENT ON COLUMN sessions.item_chars IS 'Characters of all items'' content (UTF-16 units); the text itself is never exported without --with-text.';
COMMENT ON COLUMN sessions.compactions_logged IS 'Compactions the agent logged (count).';
COMMENT ON COLUMN sessions.replayed IS 'Whether the run replayed the session (simulated rows exist).';
COMMENT ON COLUMN sessions.fidelity_note IS 'What the log lacks that limits the replay''s fidelity; NULL when none or not replayed.';
COMMENT ON COLUMN sessions.model IS 'The model of most requests, whose window and prices the replay used; NULL when not replayed.';
COMMENT ON COLUMN sessions.recorded_policy IS 'How the recorded policy was reconstructed (replay.md §5); NULL when not replayed.';
COMMENT ON COLUMN sessions.chars_per_token IS 'Characters per token the replay calibrated on the session (a ratio, not money); NULL when not replayed.';
COMMENT ON COLUMN sessions.static_block_tokens IS 'Tokens: the calibrated static block (system prompt and tools) of every prompt; NULL when not replayed.';

CREATE TABLE IF NOT EXISTS compactions (
  host                   VARCHAR NOT NULL,
  date                   DATE,
  run_id                 VARCHAR NOT NULL,
  session_id             VARCHAR NOT NULL,
  scenario               VARCHAR NOT NULL,
  request_index          INTEGER NOT NULL,
  trigger                VARCHAR NOT NULL,
  prompt_tokens_before   BIGINT NOT NULL,
  prompt_tokens_after    BIGINT,
  estimate_tokens_before BIGINT NOT NULL,
  estimate_tokens_after  BIGINT,
  messages_before        INTEGER NOT NULL,
  messages_after         INTEGER,
  summary_tokens         BIGINT,
  hook_blocked           BOOLEAN NOT NULL
);
COMMENT ON TABLE compactions IS 'One row per compaction (or hook-blocked attempt) in a replayed scenario.';
COMMENT ON COLUMN compactions.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN compactions.date IS 'UTC date of the request the compaction preceded; Hive partition key; NULL when unknown.';
COMMENT ON COLUMN compactions.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN compactions.session_id IS 'Session id.';
COMMENT ON COLUMN compactions.scenario IS 'The replayed scenario.';
COMMENT ON COLUMN compactions.request_index IS 'The request the compaction preceded.';
COMMENT ON COLUMN compactions.trigger IS 'threshold, overflow, manual or recorded.';
COMMENT ON COLUMN compactions.prompt_tokens_before IS 'Tokens: prompt size before, as the provider counts it.';
COMMENT ON COLUMN compactions.prompt_tokens_after IS 'Tokens: prompt size after; NULL when it did not complete.';
COMMENT ON COLUMN compactions.estimate_tokens_before IS 'Tokens: FreeCode''s own estimate (chars / 4) before.';
COMMENT ON COLUMN compactions.estimate_tokens_after IS 'Tokens: FreeCode''s own estimate after; NULL when it did not complete.';
COMMENT ON COLUMN compactions.messages_before IS 'Messages in context before (count).';
COMMENT ON COLUMN compactions.messages_after IS 'Messages in context after (count); NULL when it did not complete.';
COMMENT ON COLUMN compactions.summary_tokens IS 'Tokens of the summary written; NULL when none.';
COMMENT ON COLUMN compactions.hook_blocked IS 'Whether a hook blocked the compaction.';

CREATE TABLE IF NOT EXISTS replays (
  host         VARCHAR NOT NULL,
  date         DATE,
  run_id       VARCHAR NOT NULL,
  session_id   VARCHAR NOT NULL,
  scenario     VARCHAR NOT NULL,
  failed_turns INTEGER NOT NULL,
  flags        VARCHAR[] NOT NULL
);
COMMENT ON TABLE replays IS 'One row per replayed session per scenario (recorded included): what the replay knows beyond the request and compaction rows.';
COMMENT ON COLUMN replays.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN replays.date IS 'UTC date of the session''s first timestamp; Hive partition key; NULL when unknown.';
COMMENT ON COLUMN replays.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN replays.session_id IS 'Session id.';
COMMENT ON COLUMN replays.scenario IS 'The replayed scenario (runs.scenarios_json names it with its parameters).';
COMMENT ON COLUMN replays.failed_turns IS 'Turns that still could not fit the window after overflow recovery (replay.md §4 step 5) (count).';
COMMENT ON COLUMN replays.flags IS 'Kinds of the flags raised under this scenario, in detection order (the flags table has evidence and dollars).';

CREATE TABLE IF NOT EXISTS flags (
  host                VARCHAR NOT NULL,
  date                DATE,
  run_id              VARCHAR NOT NULL,
  session_id          VARCHAR NOT NULL,
  scenario            VARCHAR NOT NULL,
  kind                VARCHAR NOT NULL,
  severity            VARCHAR NOT NULL,
  basis               VARCHAR NOT NULL,
  first_request_index INTEGER NOT NULL,
  last_request_index  INTEGER NOT NULL,
  evidence_json       VARCHAR NOT NULL,
  summary             VARCHAR NOT NULL,
  stake               VARCHAR NOT NULL,
  stake_usd           DECIMAL(38, 12),
  stake_against       VARCHAR,
  stake_reason        VARCHAR
);
COMMENT ON TABLE flags IS 'One row per pathological pattern found in a session under a scenario, with its evidence and the dollars at stake.';
COMMENT ON COLUMN flags.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN flags.date IS 'UTC date of the flag''s first request; Hive partition key; NULL when unknown.';
COMMENT ON COLUMN flags.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN flags.session_id IS 'Session id.';
COMMENT ON COLUMN flags.scenario IS 'recorded (what the log shows) or a simulated scenario.';
COMMENT ON COLUMN flags.kind IS 'runaway-cost, never-compacted, non-converging-overflow, compaction-storm, blocked-hook-storm, cache-bust, estimate-divergence or ttl-mismatch.';
COMMENT ON COLUMN flags.severity IS 'info, warning or critical.';
COMMENT ON COLUMN flags.basis IS 'measured (the log''s usage) or simulated (a replay).';
COMMENT ON COLUMN flags.first_request_index IS 'First log request involved.';
COMMENT ON COLUMN flags.last_request_index IS 'Last log request involved (inclusive).';
COMMENT ON COLUMN flags.evidence_json IS 'JSON object of the numbers behind the flag, units in the names.';
COMMENT ON COLUMN flags.summary IS 'The evidence in one sentence (numbers only, no log text).';
COMMENT ON COLUMN flags.stake IS 'priced, unpriced (a request involved has no price) or none (no cost of its own).';
COMMENT ON COLUMN flags.stake_usd IS 'USD, exact: what the flagged behaviour costs more than stake_against; NULL unless priced.';
COMMENT ON COLUMN flags.stake_against IS 'What the stake is measured against; NULL when stake = none.';
COMMENT ON COLUMN flags.stake_reason IS 'Why there is no stake; NULL unless stake = none.';

CREATE TABLE IF NOT EXISTS items (
  host        VARCHAR NOT NULL,
  date        DATE,
  run_id      VARCHAR NOT NULL,
  session_id  VARCHAR NOT NULL,
  item_index  INTEGER NOT NULL,
  item_id     VARCHAR NOT NULL,
  kind        VARCHAR NOT NULL,
  timestamp   TIMESTAMP,
  chars       BIGINT NOT NULL,
  image_parts INTEGER NOT NULL,
  image_chars BIGINT NOT NULL,
  call_id     VARCHAR,
  tool_name   VARCHAR,
  text        VARCHAR
);
COMMENT ON TABLE items IS 'One row per message, summary or tool result: ids and sizes; text only with --with-text.';
COMMENT ON COLUMN items.host IS 'Machine name; Hive partition key.';
COMMENT ON COLUMN items.date IS 'UTC date of the session''s first timestamp; Hive partition key; NULL when unknown.';
COMMENT ON COLUMN items.run_id IS 'The run that wrote the row (runs.run_id).';
COMMENT ON COLUMN items.session_id IS 'Session id.';
COMMENT ON COLUMN items.item_index IS 'Position of the item in the session.';
COMMENT ON COLUMN items.item_id IS 'Item id as logged (or derived from its position).';
COMMENT ON COLUMN items.kind IS 'user, assistant, tool_result, summary or system.';
COMMENT ON COLUMN items.timestamp IS 'When the item was logged (UTC); NULL when unknown.';
COMMENT ON COLUMN items.chars IS 'Characters (UTF-16 units) of the content the provider saw.';
COMMENT ON COLUMN items.image_parts IS 'Image parts (count).';
COMMENT ON COLUMN items.image_chars IS 'Base64 characters of the image parts.';
COMMENT ON COLUMN items.call_id IS 'Tool call id of a tool result.';
COMMENT ON COLUMN items.tool_name IS 'Tool name of a tool result.';
COMMENT ON COLUMN items.text IS 'The content; NULL unless the run had --with-text.';

CREATE TABLE IF NOT EXISTS tune_points (
  host                   VARCHAR NOT NULL,
  date                   DATE NOT NULL,
  run_id                 VARCHAR NOT NULL,
  model_group            VARCHAR,
  scenario               VARCHAR NOT NULL,
  family                 VARCHAR NOT NULL,
  series                 VARCHAR,
  target_tokens          BIGINT,
  buffer_tokens          BIGINT NOT NULL,
  preserve_recent_turns  INTEGER NOT NULL,
  ttl                    VARCHAR NOT NULL,
  sessions               BIGINT NOT NULL,
  requests               BIGINT NOT NULL,
  prompt_tokens          BIGINT NOT NULL,
  cache_read_tokens      BIGINT NOT NULL,
  cache_write_5m_tokens  BIGINT NOT NULL,
  cache_write_1h_tokens  BIGINT NOT NULL,
  uncached_input_tokens  BIGINT NOT NULL,
  output_tokens          BIGINT NOT NULL,
  compactions            BIGINT NOT NULL,
  unpriced_requests      BIGINT NOT NULL,
  cost_usd               DECIMAL(38, 12),
  saving_vs_recorded_usd DECIMAL(38, 12),
  knee                   BOOLEAN NOT NULL,
  recommended            BOOLEAN NOT NULL
);
COMMENT ON TABLE tune_points IS 'One row per point of a tune sweep (per main model and for all sessions): the cost curve as tune computed it.';
COMMENT ON COLUMN tune_points.host IS 'Machine name.';
COMMENT ON COLUMN tune_points.date IS 'UTC date the run started.';
COMMENT ON COLUMN tune_points.run_id IS 'The tune run (runs.run_id).';
COMMENT ON COLUMN tune_points.model_group IS 'The main model of the sessions summed; NULL = all sessions.';
COMMENT ON COLUMN tune_points.scenario IS 'Scenario name.';
COMMENT ON COLUMN tune_points.family IS 'Scenario family.';
COMMENT ON COLUMN tune_points.series IS 'The target curve the point belongs to; NULL for reference points.';
COMMENT ON COLUMN tune_points.target_tokens IS 'Tokens: compaction target; NULL when the family has none.';
COMMENT ON COLUMN tune_points.buffer_tokens IS 'Tokens below the limit where compaction triggers.';
COMMENT ON COLUMN tune_points.preserve_recent_turns IS 'User turns kept verbatim by a compaction (count).';
COMMENT ON COLUMN tune_points.ttl IS 'Prompt-cache TTL: 5m or 1h.';
COMMENT ON COLUMN tune_points.sessions IS 'Sessions summed (count).';
COMMENT ON COLUMN tune_points.requests IS 'Agent requests (count).';
COMMENT ON COLUMN tune_points.prompt_tokens IS 'Tokens: billed prompts.';
COMMENT ON COLUMN tune_points.cache_read_tokens IS 'Tokens read from the cache.';
COMMENT ON COLUMN tune_points.cache_write_5m_tokens IS 'Tokens written at the 5-minute rate.';
COMMENT ON COLUMN tune_points.cache_write_1h_tokens IS 'Tokens written at the 1-hour rate.';
COMMENT ON COLUMN tune_points.uncached_input_tokens IS 'Tokens neither read nor written.';
COMMENT ON COLUMN tune_points.output_tokens IS 'Output tokens.';
COMMENT ON COLUMN tune_points.compactions IS 'Completed compactions (count).';
COMMENT ON COLUMN tune_points.unpriced_requests IS 'Requests left out of the cost for want of a price (count).';
COMMENT ON COLUMN tune_points.cost_usd IS 'USD, exact: the point''s cost; NULL when nothing could be priced.';
COMMENT ON COLUMN tune_points.saving_vs_recorded_usd IS 'USD, exact: recorded policy''s cost minus this point''s (positive = cheaper).';
COMMENT ON COLUMN tune_points.knee IS 'The point is the knee of its curve.';
COMMENT ON COLUMN tune_points.recommended IS 'The point is the recommended target of its group.';
