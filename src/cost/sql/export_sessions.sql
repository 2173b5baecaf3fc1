-- sessions.csv: one row per session per scenario: totals, cost by class, savings against
-- `recorded` and `none`; fidelity (from `measured` rows) on the `recorded` rows.
SELECT
  c.session_id, c.source, c.models, c.scenario,
  c.requests, c.summarize_requests, c.rejected_overflows,
  c.prompt_tokens, c.cache_read_tokens, c.cache_write_5m_tokens, c.cache_write_1h_tokens,
  c.uncached_input_tokens, c.output_tokens, c.peak_context_tokens,
  c.compactions, c.blocked_compactions, c.overflow_retries, c.failed_turns, c.long_context_requests,
  c.unpriced_requests, c.unpriced_prompt_tokens, c.unpriced_output_tokens,
  pusd_to_usd(c.cost_input_pusd) AS cost_input_usd,
  pusd_to_usd(c.cost_cache_read_pusd) AS cost_cache_read_usd,
  pusd_to_usd(c.cost_cache_write_5m_pusd) AS cost_cache_write_5m_usd,
  pusd_to_usd(c.cost_cache_write_1h_pusd) AS cost_cache_write_1h_usd,
  pusd_to_usd(c.cost_output_pusd) AS cost_output_usd,
  pusd_to_usd(c.cost_pusd) AS cost_usd,
  v.saving_vs_recorded_prompt_tokens,
  pusd_to_usd(v.saving_vs_recorded_pusd) AS saving_vs_recorded_usd,
  v.saving_vs_recorded_pct,
  v.saving_vs_none_prompt_tokens,
  pusd_to_usd(v.saving_vs_none_pusd) AS saving_vs_none_usd,
  v.saving_vs_none_pct,
  f.matched_requests AS fidelity_matched_requests,
  f.prompt_tokens_error_pct AS fidelity_prompt_tokens_error_pct,
  f.cost_error_pct AS fidelity_cost_error_pct,
  f.median_request_error_pct AS fidelity_median_request_error_pct,
  f.median_cache_read_error_pct AS fidelity_median_cache_read_error_pct,
  c.fidelity_note,
  c.flags
FROM session_costs c
LEFT JOIN session_savings v USING (session_id, scenario)
LEFT JOIN fidelity f ON f.session_id = c.session_id AND c.scenario = 'recorded'
ORDER BY c.session_id, c.scenario;
