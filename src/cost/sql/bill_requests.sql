-- The bill, one row per measured request (replay.md §3): the log's own usage priced by `request_costs`
-- (the one source of money), with its UTC day, its session's project and the unknown-TTL writes
-- split out of the 5m column. Unknown-TTL writes cost the 5m rate: their share of the 5m cost is
-- exact because that cost is tokens × rate (an integer multiple of the token count).
CREATE OR REPLACE VIEW bill_requests AS
WITH measured AS (
  SELECT
    c.*,
    coalesce(u.write_unknown_ttl_tokens, 0) AS unknown_ttl_tokens,
    s.project,
    s.host
  FROM request_costs c
  LEFT JOIN bill_unknown_ttl u ON u.session_id = c.session_id AND u.request_index = c.request_index
  LEFT JOIN bill_sessions s ON s.session_id = c.session_id
  WHERE c.scenario = 'measured' AND c.kind = 'request'
),
split AS (
  SELECT
    *,
    CASE WHEN unknown_ttl_tokens = 0 THEN 0::HUGEINT
         ELSE cost_cache_write_5m_pusd * unknown_ttl_tokens // cache_write_5m_tokens END AS unknown_ttl_pusd
  FROM measured
)
SELECT
  session_id,
  source,
  model,
  project,
  host,
  request_index,
  timestamp_ms,
  -- The day is the UTC date of the request's timestamp; NULL when the log gave no time.
  CASE WHEN timestamp_ms IS NULL THEN NULL ELSE strftime(epoch_ms(timestamp_ms), '%Y-%m-%d') END AS day,
  price_id,
  long_context,
  unpriced,
  prompt_tokens,
  uncached_input_tokens,
  cache_read_tokens,
  cache_write_5m_tokens - unknown_ttl_tokens AS cache_write_5m_tokens,
  cache_write_1h_tokens,
  unknown_ttl_tokens AS cache_write_unknown_ttl_tokens,
  output_tokens,
  cost_input_pusd,
  cost_cache_read_pusd,
  cost_cache_write_5m_pusd - unknown_ttl_pusd AS cost_cache_write_5m_pusd,
  cost_cache_write_1h_pusd,
  unknown_ttl_pusd AS cost_cache_write_unknown_ttl_pusd,
  cost_output_pusd,
  cost_pusd
FROM split;
