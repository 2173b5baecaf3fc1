-- cachecost tables (replay.md §8). Created fresh on every run: a --db file keeps only the last run.
-- Columns are documented in src/cost/README.md; row types live in src/cost/rows.ts.

CREATE OR REPLACE TABLE scenarios (
  name        VARCHAR NOT NULL,
  family      VARCHAR NOT NULL,
  params_json VARCHAR NOT NULL
);

CREATE OR REPLACE TABLE requests (
  session_id            VARCHAR NOT NULL,
  source                VARCHAR NOT NULL,
  model                 VARCHAR NOT NULL,
  scenario              VARCHAR NOT NULL,
  request_index         INTEGER NOT NULL CHECK (request_index >= 0),
  timestamp_ms          BIGINT,
  kind                  VARCHAR NOT NULL CHECK (kind IN ('request', 'summarize', 'rejected_overflow')),
  prompt_tokens         BIGINT NOT NULL CHECK (prompt_tokens >= 0),
  cache_read_tokens     BIGINT NOT NULL CHECK (cache_read_tokens >= 0),
  cache_write_5m_tokens BIGINT NOT NULL CHECK (cache_write_5m_tokens >= 0),
  cache_write_1h_tokens BIGINT NOT NULL CHECK (cache_write_1h_tokens >= 0),
  uncached_input_tokens BIGINT NOT NULL CHECK (uncached_input_tokens >= 0),
  output_tokens         BIGINT NOT NULL CHECK (output_tokens >= 0),
  context_tokens_after  BIGINT NOT NULL CHECK (context_tokens_after >= 0),
  compaction_before     BOOLEAN NOT NULL,
  overflow_retries      INTEGER NOT NULL CHECK (overflow_retries >= 0),
  -- A request the replay models: the fidelity compares exactly these (replay.md §6).
  modelled              BOOLEAN NOT NULL,
  -- Billed requests split their prompt exactly into the four classes (engine.md §10 inclusive convention).
  CHECK (kind = 'rejected_overflow'
         OR prompt_tokens = cache_read_tokens + cache_write_5m_tokens + cache_write_1h_tokens + uncached_input_tokens)
);

CREATE OR REPLACE TABLE compactions (
  session_id             VARCHAR NOT NULL,
  scenario               VARCHAR NOT NULL,
  request_index          INTEGER NOT NULL,
  trigger                VARCHAR NOT NULL CHECK (trigger IN ('threshold', 'overflow', 'manual', 'recorded')),
  prompt_tokens_before   BIGINT NOT NULL,
  prompt_tokens_after    BIGINT,
  estimate_tokens_before BIGINT NOT NULL,
  estimate_tokens_after  BIGINT,
  messages_before        INTEGER NOT NULL,
  messages_after         INTEGER,
  summary_tokens         BIGINT,
  hook_blocked           BOOLEAN NOT NULL
);

CREATE OR REPLACE TABLE sessions (
  session_id    VARCHAR NOT NULL,
  source        VARCHAR NOT NULL,
  models        VARCHAR[] NOT NULL,
  scenario      VARCHAR NOT NULL,
  failed_turns  INTEGER NOT NULL CHECK (failed_turns >= 0),
  fidelity_note VARCHAR,
  flags         VARCHAR[] NOT NULL
);

-- The resolved price table. Rates are integer pico-dollars per token (= micro-dollars per MTok);
-- NULL = the provider has no such price. A window is [valid_from_ms, valid_to_ms), NULL = unbounded.
CREATE OR REPLACE TABLE prices (
  price_id                      VARCHAR NOT NULL,
  provider                      VARCHAR NOT NULL,
  cache_family                  VARCHAR NOT NULL,
  valid_from_ms                 BIGINT,
  valid_to_ms                   BIGINT,
  input_pusd_per_token          BIGINT NOT NULL,
  output_pusd_per_token         BIGINT NOT NULL,
  cache_read_pusd_per_token     BIGINT,
  cache_write_5m_pusd_per_token BIGINT,
  cache_write_1h_pusd_per_token BIGINT,
  long_context_threshold_tokens BIGINT,
  lc_input_pusd_per_token          BIGINT,
  lc_output_pusd_per_token         BIGINT,
  lc_cache_read_pusd_per_token     BIGINT,
  lc_cache_write_5m_pusd_per_token BIGINT,
  lc_cache_write_1h_pusd_per_token BIGINT,
  context_window_tokens         BIGINT,
  max_output_tokens             BIGINT,
  derived                       VARCHAR[] NOT NULL,
  source                        VARCHAR NOT NULL,
  date                          VARCHAR NOT NULL,
  origin                        VARCHAR NOT NULL
);

-- How each model name seen in `requests` resolved (exact id, alias, normalization); NULL price_id = unpriced.
CREATE OR REPLACE TABLE model_names (
  model    VARCHAR NOT NULL,
  price_id VARCHAR,
  basis    VARCHAR
);

-- Pico-dollars as exact USD (DECIMAL(38,12)); used only where a report shows USD.
CREATE OR REPLACE MACRO pusd_to_usd(pusd) AS (pusd::DECIMAL(38, 0) * 0.000000000001);
