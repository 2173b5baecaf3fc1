-- One run's facts that the cost tables have no place for, staged for fleet_fill.sql. Times are
-- UTC epoch ms, money pico-dollars as decimal text (converted exactly there).
CREATE OR REPLACE TABLE x_run (
  run_id            VARCHAR NOT NULL,
  host              VARCHAR NOT NULL,
  command           VARCHAR NOT NULL,
  cachecost_version VARCHAR NOT NULL,
  price_table_date  VARCHAR,
  pricing_file      VARCHAR,
  inputs            VARCHAR[] NOT NULL,
  scenarios_json    VARCHAR NOT NULL,
  thresholds_json   VARCHAR,
  with_text         BOOLEAN NOT NULL,
  ingest_issues     BIGINT NOT NULL,
  started_ms        BIGINT NOT NULL,
  -- Sessions read, when the run stages no session rows (tune); NULL = count x_sessions.
  sessions          BIGINT
);

CREATE OR REPLACE TABLE x_sessions (
  session_id             VARCHAR NOT NULL,
  source                 VARCHAR NOT NULL,
  project                VARCHAR,
  parent_session_id      VARCHAR,
  first_ms               BIGINT,
  last_ms                BIGINT,
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

-- Each replayed scenario's session facts (`simulationRows` sessions rows).
CREATE OR REPLACE TABLE x_replays (
  session_id   VARCHAR NOT NULL,
  scenario     VARCHAR NOT NULL,
  failed_turns INTEGER NOT NULL,
  flags        VARCHAR[] NOT NULL
);

-- Measured requests that are sub-agent traffic, with the sub-agent's id (`Request.agentId`).
CREATE OR REPLACE TABLE x_agents (
  session_id    VARCHAR NOT NULL,
  request_index INTEGER NOT NULL,
  agent_id      VARCHAR NOT NULL
);

CREATE OR REPLACE TABLE x_flags (
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
  stake_pusd          VARCHAR,
  stake_against       VARCHAR,
  stake_reason        VARCHAR
);

CREATE OR REPLACE TABLE x_items (
  session_id  VARCHAR NOT NULL,
  item_index  INTEGER NOT NULL,
  item_id     VARCHAR NOT NULL,
  kind        VARCHAR NOT NULL,
  timestamp_ms BIGINT,
  chars       BIGINT NOT NULL,
  image_parts INTEGER NOT NULL,
  image_chars BIGINT NOT NULL,
  call_id     VARCHAR,
  tool_name   VARCHAR,
  text        VARCHAR
);

CREATE OR REPLACE TABLE x_tune_points (
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
  cost_pusd              VARCHAR,
  saving_vs_recorded_pusd VARCHAR,
  knee                   BOOLEAN NOT NULL,
  recommended            BOOLEAN NOT NULL
);
