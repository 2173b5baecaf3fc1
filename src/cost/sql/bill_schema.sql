-- The bill's side tables (replay.md §3): facts of the `measured` request rows that `requests` has no
-- column for. Created fresh with the bill views by src/cost/bill.ts; keyed like `requests`.

-- One row per session of the bill: its project (`Session.project`; NULL = none known) and the
-- machine it was read on (the host name or `--host` label; the exporting host for `--from`).
CREATE OR REPLACE TABLE bill_sessions (
  session_id VARCHAR NOT NULL,
  project    VARCHAR,
  host       VARCHAR
);

-- Cache writes whose TTL the log did not give (no 5m/1h split). They are inside the measured row's
-- `cache_write_5m_tokens` (priced at the 5m rate) and shown apart so the user sees them.
-- Only requests with such writes have a row.
CREATE OR REPLACE TABLE bill_unknown_ttl (
  session_id               VARCHAR NOT NULL,
  request_index            INTEGER NOT NULL,
  write_unknown_ttl_tokens BIGINT NOT NULL CHECK (write_unknown_ttl_tokens > 0)
);

-- Measured requests that are sub-agent traffic attributed to their parent session (`Request.agentId`
-- non-null: Claude Code subagents and sidechains, Codex forked sub-agents). Only those have a row.
-- Exports (`--from`) carry it as `requests.agent_id`; one written before that column existed leaves
-- the table empty, and that bill says the split is unknown.
CREATE OR REPLACE TABLE bill_subagent (
  session_id    VARCHAR NOT NULL,
  request_index INTEGER NOT NULL
);
