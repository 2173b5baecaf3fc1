-- Costs are computed here, in SQL, from `requests` joined to `prices` (the TypeScript reference in
-- src/cost/price-request.ts must agree to the last pico-dollar; test/cost/differential.test.ts).
-- Money is exact: tokens (BIGINT) x rate (pUSD/token) as HUGEINT pico-dollars.
-- One row per request per scenario with its cost per class.
CREATE OR REPLACE VIEW request_costs AS
WITH joined AS (
  SELECT
    r.*,
    r.rowid AS seq,
    m.price_id,
    p.price_id IS NOT NULL AS has_price,
    -- Long-context tier per request: the whole prompt above the threshold bills every token at the tier.
    coalesce(p.long_context_threshold_tokens IS NOT NULL AND r.prompt_tokens > p.long_context_threshold_tokens, false)
      AS long_context,
    p.input_pusd_per_token, p.output_pusd_per_token, p.cache_read_pusd_per_token,
    p.cache_write_5m_pusd_per_token, p.cache_write_1h_pusd_per_token,
    p.lc_input_pusd_per_token, p.lc_output_pusd_per_token, p.lc_cache_read_pusd_per_token,
    p.lc_cache_write_5m_pusd_per_token, p.lc_cache_write_1h_pusd_per_token
  FROM requests r
  LEFT JOIN model_names m ON m.model = r.model
  -- Date-effective: the window containing the request's time; no time = the open-ended (current) price.
  LEFT JOIN prices p ON p.price_id = m.price_id AND (
    (r.timestamp_ms IS NULL AND p.valid_to_ms IS NULL)
    OR (r.timestamp_ms IS NOT NULL
        AND (p.valid_from_ms IS NULL OR p.valid_from_ms <= r.timestamp_ms)
        AND (p.valid_to_ms IS NULL OR r.timestamp_ms < p.valid_to_ms))
  )
),
rated AS (
  SELECT
    *,
    CASE WHEN long_context THEN lc_input_pusd_per_token ELSE input_pusd_per_token END AS input_rate,
    CASE WHEN long_context THEN lc_cache_read_pusd_per_token ELSE cache_read_pusd_per_token END AS cache_read_rate,
    CASE WHEN long_context THEN lc_cache_write_5m_pusd_per_token ELSE cache_write_5m_pusd_per_token END AS cache_write_5m_rate,
    CASE WHEN long_context THEN lc_cache_write_1h_pusd_per_token ELSE cache_write_1h_pusd_per_token END AS cache_write_1h_rate,
    CASE WHEN long_context THEN lc_output_pusd_per_token ELSE output_pusd_per_token END AS output_rate
  FROM joined
),
classes AS (
  SELECT
    *,
    -- A class with no tokens costs 0 even without a rate; tokens in a class without a rate are unpriced.
    CASE WHEN uncached_input_tokens = 0 THEN 0::HUGEINT ELSE uncached_input_tokens::HUGEINT * input_rate END AS input_pusd,
    CASE WHEN cache_read_tokens = 0 THEN 0::HUGEINT ELSE cache_read_tokens::HUGEINT * cache_read_rate END AS cache_read_pusd,
    CASE WHEN cache_write_5m_tokens = 0 THEN 0::HUGEINT ELSE cache_write_5m_tokens::HUGEINT * cache_write_5m_rate END AS cache_write_5m_pusd,
    CASE WHEN cache_write_1h_tokens = 0 THEN 0::HUGEINT ELSE cache_write_1h_tokens::HUGEINT * cache_write_1h_rate END AS cache_write_1h_pusd,
    CASE WHEN output_tokens = 0 THEN 0::HUGEINT ELSE output_tokens::HUGEINT * output_rate END AS output_pusd
  FROM rated
),
flagged AS (
  SELECT
    *,
    kind <> 'rejected_overflow' AND (
      NOT has_price OR input_pusd IS NULL OR cache_read_pusd IS NULL OR cache_write_5m_pusd IS NULL
      OR cache_write_1h_pusd IS NULL OR output_pusd IS NULL
    ) AS unpriced
  FROM classes
)
SELECT
  session_id, source, model, scenario, request_index, timestamp_ms, kind,
  prompt_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
  uncached_input_tokens, output_tokens, context_tokens_after, compaction_before, overflow_retries,
  modelled,
  seq,
  price_id,
  -- Whether the tier priced this request (not for unpriced or unbilled requests).
  long_context AND kind <> 'rejected_overflow' AND NOT unpriced AS long_context,
  unpriced,
  -- A rejected overflow is counted but not billed: 0, not NULL. Unpriced: NULL, never 0.
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL ELSE input_pusd END AS cost_input_pusd,
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL ELSE cache_read_pusd END AS cost_cache_read_pusd,
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL ELSE cache_write_5m_pusd END AS cost_cache_write_5m_pusd,
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL ELSE cache_write_1h_pusd END AS cost_cache_write_1h_pusd,
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL ELSE output_pusd END AS cost_output_pusd,
  CASE WHEN kind = 'rejected_overflow' THEN 0::HUGEINT WHEN unpriced THEN NULL
       ELSE input_pusd + cache_read_pusd + cache_write_5m_pusd + cache_write_1h_pusd + output_pusd END AS cost_pusd
FROM flagged;
