-- Fills the fleet tables (fleet_schema.sql, created in schema `fleet`) from one run's working
-- tables: `request_costs` (the one source of money, converted exactly from pico-dollars to
-- DECIMAL(38,12) USD), `compactions`, the bill's side tables and the export's own staging tables
-- (`x_run`, `x_sessions`, `x_flags`, `x_items`). Every row carries the run's id and host.

INSERT INTO fleet.runs
SELECT
  host, CAST(epoch_ms(started_ms) AS DATE), run_id, command, cachecost_version, price_table_date, pricing_file,
  inputs, scenarios_json, thresholds_json, with_text,
  coalesce(sessions, (SELECT count(*) FROM x_sessions)), (SELECT count(*) FROM request_costs), ingest_issues, epoch_ms(started_ms)
FROM x_run;

INSERT INTO fleet.requests
SELECT
  x.host,
  CAST(epoch_ms(c.timestamp_ms) AS DATE),
  x.run_id,
  c.session_id, c.source, s.project, c.model, c.scenario, c.request_index, c.seq,
  epoch_ms(c.timestamp_ms),
  c.kind,
  c.prompt_tokens, c.cache_read_tokens, c.cache_write_5m_tokens, c.cache_write_1h_tokens,
  CASE WHEN c.scenario = 'measured' AND c.kind = 'request' THEN coalesce(u.write_unknown_ttl_tokens, 0) ELSE 0 END,
  c.uncached_input_tokens, c.output_tokens, c.context_tokens_after, c.compaction_before, c.overflow_retries,
  c.price_id, c.long_context, c.unpriced,
  pusd_to_usd(c.cost_input_pusd),
  pusd_to_usd(c.cost_cache_read_pusd),
  pusd_to_usd(c.cost_cache_write_5m_pusd),
  pusd_to_usd(c.cost_cache_write_1h_pusd),
  pusd_to_usd(c.cost_output_pusd),
  pusd_to_usd(c.cost_pusd),
  -- A log request's agent: on its own rows (every scenario), not on the summarize or rejected rows made for it.
  CASE WHEN c.kind = 'request' THEN a.agent_id END,
  c.modelled
FROM request_costs c
CROSS JOIN x_run x
-- One project per session id, so that a session id read twice cannot duplicate its rows here.
LEFT JOIN (SELECT session_id, any_value(project) AS project FROM x_sessions GROUP BY session_id) s ON s.session_id = c.session_id
LEFT JOIN bill_unknown_ttl u ON u.session_id = c.session_id AND u.request_index = c.request_index
LEFT JOIN (SELECT session_id, request_index, any_value(agent_id) AS agent_id FROM x_agents GROUP BY ALL) a
  ON a.session_id = c.session_id AND a.request_index = c.request_index
ORDER BY c.session_id, c.scenario, c.request_index, c.seq;

INSERT INTO fleet.sessions
SELECT
  x.host, CAST(epoch_ms(s.first_ms) AS DATE), x.run_id,
  s.session_id, s.source, s.project, s.parent_session_id, epoch_ms(s.first_ms), epoch_ms(s.last_ms), s.models,
  s.requests, s.requests_without_usage, s.totals_only, s.items, s.item_chars, s.compactions_logged, s.replayed,
  s.fidelity_note, s.model, s.recorded_policy, s.chars_per_token, s.static_block_tokens
FROM x_sessions s
CROSS JOIN x_run x
ORDER BY s.session_id;

INSERT INTO fleet.replays
SELECT
  x.host, CAST(epoch_ms(s.first_ms) AS DATE), x.run_id,
  p.session_id, p.scenario, p.failed_turns, p.flags
FROM (SELECT *, rowid AS seq FROM x_replays) p
CROSS JOIN x_run x
LEFT JOIN (SELECT session_id, min(first_ms) AS first_ms FROM x_sessions GROUP BY session_id) s ON s.session_id = p.session_id
ORDER BY p.session_id, p.seq;

-- A compaction's date is that of the request it preceded in the same scenario.
INSERT INTO fleet.compactions
SELECT
  x.host,
  CAST(epoch_ms((
    SELECT min(r.timestamp_ms) FROM requests r
    WHERE r.session_id = c.session_id AND r.scenario = c.scenario AND r.request_index = c.request_index
  )) AS DATE),
  x.run_id,
  c.session_id, c.scenario, c.request_index, c.trigger,
  c.prompt_tokens_before, c.prompt_tokens_after, c.estimate_tokens_before, c.estimate_tokens_after,
  c.messages_before, c.messages_after, c.summary_tokens, c.hook_blocked
FROM (SELECT *, rowid AS seq FROM compactions) c
CROSS JOIN x_run x
ORDER BY c.session_id, c.scenario, c.request_index, c.seq;

-- A flag's date is that of its first request (the measured row, else any scenario's).
INSERT INTO fleet.flags
SELECT
  x.host,
  CAST(epoch_ms(coalesce(
    (SELECT min(r.timestamp_ms) FROM requests r
     WHERE r.session_id = f.session_id AND r.scenario = 'measured' AND r.request_index = f.first_request_index),
    (SELECT min(r.timestamp_ms) FROM requests r
     WHERE r.session_id = f.session_id AND r.request_index = f.first_request_index)
  )) AS DATE),
  x.run_id,
  f.session_id, f.scenario, f.kind, f.severity, f.basis, f.first_request_index, f.last_request_index,
  f.evidence_json, f.summary, f.stake,
  pusd_to_usd(CAST(f.stake_pusd AS HUGEINT)),
  f.stake_against, f.stake_reason
FROM x_flags f
CROSS JOIN x_run x
ORDER BY f.session_id, f.scenario, f.kind, f.first_request_index;

INSERT INTO fleet.items
SELECT
  x.host, CAST(epoch_ms(s.first_ms) AS DATE), x.run_id,
  i.session_id, i.item_index, i.item_id, i.kind, epoch_ms(i.timestamp_ms), i.chars, i.image_parts, i.image_chars,
  i.call_id, i.tool_name, i.text
FROM x_items i
CROSS JOIN x_run x
LEFT JOIN (SELECT session_id, min(first_ms) AS first_ms FROM x_sessions GROUP BY session_id) s ON s.session_id = i.session_id
ORDER BY i.session_id, i.item_index;

INSERT INTO fleet.tune_points
SELECT
  x.host, CAST(epoch_ms(x.started_ms) AS DATE), x.run_id,
  t.model_group, t.scenario, t.family, t.series, t.target_tokens, t.buffer_tokens, t.preserve_recent_turns, t.ttl,
  t.sessions, t.requests, t.prompt_tokens, t.cache_read_tokens, t.cache_write_5m_tokens, t.cache_write_1h_tokens,
  t.uncached_input_tokens, t.output_tokens, t.compactions, t.unpriced_requests,
  pusd_to_usd(CAST(t.cost_pusd AS HUGEINT)), pusd_to_usd(CAST(t.saving_vs_recorded_pusd AS HUGEINT)),
  t.knee, t.recommended
FROM x_tune_points t
CROSS JOIN x_run x;
