-- The bill grouped by day, session, model, project or host, with a total row (replay.md §3).
-- `group_by`: 'day' | 'session' | 'model' | 'project' | 'host'; `since_ms` / `until_ms`: a half-open UTC
-- window [since, until) in epoch ms, NULL = unbounded; a request without a time is outside any
-- bounded window. Costs sum the priced requests only (NULL when none is priced): a group with
-- `unpriced_requests > 0` is incomplete, never padded with $0.
CREATE OR REPLACE MACRO bill_report(group_by, since_ms, until_ms) AS TABLE
WITH chosen AS (
  SELECT
    *,
    CASE group_by
      WHEN 'day' THEN day
      WHEN 'session' THEN session_id
      WHEN 'model' THEN model
      WHEN 'project' THEN project
      WHEN 'host' THEN host
    END AS group_key
  FROM bill_requests
  WHERE (since_ms IS NULL OR (timestamp_ms IS NOT NULL AND timestamp_ms >= since_ms))
    AND (until_ms IS NULL OR (timestamp_ms IS NOT NULL AND timestamp_ms < until_ms))
),
grouped AS (
  SELECT
    grouping(group_key) = 1 AS is_total,
    group_key,
    count(*) AS requests,
    count(DISTINCT session_id) AS sessions,
    list_sort(list(DISTINCT model)) AS models,
    min(timestamp_ms) AS first_timestamp_ms,
    max(timestamp_ms) AS last_timestamp_ms,
    coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
    coalesce(sum(uncached_input_tokens), 0) AS uncached_input_tokens,
    coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
    coalesce(sum(cache_write_5m_tokens), 0) AS cache_write_5m_tokens,
    coalesce(sum(cache_write_1h_tokens), 0) AS cache_write_1h_tokens,
    coalesce(sum(cache_write_unknown_ttl_tokens), 0) AS cache_write_unknown_ttl_tokens,
    coalesce(sum(output_tokens), 0) AS output_tokens,
    count(*) FILTER (WHERE long_context) AS long_context_requests,
    count(*) FILTER (WHERE unpriced) AS unpriced_requests,
    coalesce(sum(prompt_tokens + output_tokens) FILTER (WHERE unpriced), 0) AS unpriced_tokens,
    sum(cost_input_pusd) AS cost_input_pusd,
    sum(cost_cache_read_pusd) AS cost_cache_read_pusd,
    sum(cost_cache_write_5m_pusd) AS cost_cache_write_5m_pusd,
    sum(cost_cache_write_1h_pusd) AS cost_cache_write_1h_pusd,
    sum(cost_cache_write_unknown_ttl_pusd) AS cost_cache_write_unknown_ttl_pusd,
    sum(cost_output_pusd) AS cost_output_pusd,
    sum(cost_pusd) AS cost_pusd
  FROM chosen
  GROUP BY GROUPING SETS ((group_key), ())
)
SELECT
  *,
  -- Cache hit rate = read / prompt (prompt = uncached + read + every write), NULL without prompt.
  CASE WHEN prompt_tokens = 0 THEN NULL ELSE 100.0 * cache_read_tokens / prompt_tokens END AS cache_hit_rate_pct
FROM grouped
-- Days in date order; sessions by first request; models and projects by cost, largest first.
ORDER BY
  is_total,
  CASE WHEN group_by = 'day' THEN group_key END NULLS LAST,
  CASE WHEN group_by = 'session' THEN first_timestamp_ms END NULLS LAST,
  cost_pusd DESC NULLS LAST,
  group_key NULLS LAST;
