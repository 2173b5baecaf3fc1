-- requests.csv: one row per request per scenario, with its cost per class in exact USD.
SELECT
  session_id, source, model, scenario, request_index, timestamp_ms, kind,
  prompt_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
  uncached_input_tokens, output_tokens, context_tokens_after, compaction_before, overflow_retries,
  price_id, long_context, unpriced,
  pusd_to_usd(cost_input_pusd) AS cost_input_usd,
  pusd_to_usd(cost_cache_read_pusd) AS cost_cache_read_usd,
  pusd_to_usd(cost_cache_write_5m_pusd) AS cost_cache_write_5m_usd,
  pusd_to_usd(cost_cache_write_1h_pusd) AS cost_cache_write_1h_usd,
  pusd_to_usd(cost_output_pusd) AS cost_output_usd,
  pusd_to_usd(cost_pusd) AS cost_usd
FROM request_costs
ORDER BY session_id, scenario, request_index, seq;
