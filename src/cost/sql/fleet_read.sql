-- Exports read back (`--from`): the loaded `fleet` tables become the `request_costs` every report
-- reads, so the reports run their own SQL files unchanged. Money returns from DECIMAL(38,12) USD
-- to HUGEINT pico-dollars exactly (× 10^12 of a 12-digit scale is an integer). A session id found
-- on more than one host is read as `<id>@<host>`, so two machines' sessions never merge.
CREATE OR REPLACE TABLE fleet_keys AS
SELECT
  host,
  session_id,
  CASE WHEN count(*) OVER (PARTITION BY session_id) > 1 THEN session_id || '@' || host ELSE session_id END AS key
FROM (SELECT DISTINCT host, session_id FROM fleet.requests);

CREATE OR REPLACE MACRO usd_to_pusd(usd) AS CAST(usd * 1000000000000 AS HUGEINT);

CREATE OR REPLACE VIEW request_costs AS
SELECT
  k.key AS session_id, r.source, r.model, r.scenario, r.request_index, epoch_ms(r.timestamp) AS timestamp_ms, r.kind,
  r.prompt_tokens, r.cache_read_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
  r.uncached_input_tokens, r.output_tokens, r.context_tokens_after, r.compaction_before, r.overflow_retries,
  coalesce(r.modelled, false) AS modelled,
  row_number() OVER (ORDER BY r.host, k.key, r.scenario, r.request_index, r.seq) AS seq,
  r.price_id, r.long_context, r.unpriced,
  usd_to_pusd(r.cost_input_usd) AS cost_input_pusd,
  usd_to_pusd(r.cost_cache_read_usd) AS cost_cache_read_pusd,
  usd_to_pusd(r.cost_cache_write_5m_usd) AS cost_cache_write_5m_pusd,
  usd_to_pusd(r.cost_cache_write_1h_usd) AS cost_cache_write_1h_pusd,
  usd_to_pusd(r.cost_output_usd) AS cost_output_pusd,
  usd_to_pusd(r.cost_usd) AS cost_pusd,
  r.host
FROM fleet.requests r
JOIN fleet_keys k ON k.host = r.host AND k.session_id = r.session_id;

-- The bill's side tables, from the measured rows (`agent_id` is NULL throughout in exports written
-- before it existed: the bill then says the sub-agent split is unknown, see `FleetColumns`).
INSERT INTO bill_sessions
SELECT k.key, any_value(r.project), any_value(r.host)
FROM fleet.requests r
JOIN fleet_keys k ON k.host = r.host AND k.session_id = r.session_id
WHERE r.scenario = 'measured'
GROUP BY k.key;

INSERT INTO bill_unknown_ttl
SELECT k.key, r.request_index, r.cache_write_unknown_ttl_tokens
FROM fleet.requests r
JOIN fleet_keys k ON k.host = r.host AND k.session_id = r.session_id
WHERE r.scenario = 'measured' AND r.kind = 'request' AND r.cache_write_unknown_ttl_tokens > 0;

INSERT INTO bill_subagent
SELECT DISTINCT k.key, r.request_index
FROM fleet.requests r
JOIN fleet_keys k ON k.host = r.host AND k.session_id = r.session_id
WHERE r.scenario = 'measured' AND r.kind = 'request' AND r.agent_id IS NOT NULL;
