-- scenarios.csv: one row per scenario: its parameters, totals over all sessions, cost and savings.
SELECT
  sc.name AS scenario, sc.family, sc.params_json,
  coalesce(c.sessions, 0) AS sessions,
  coalesce(c.requests, 0) AS requests,
  coalesce(c.summarize_requests, 0) AS summarize_requests,
  coalesce(c.rejected_overflows, 0) AS rejected_overflows,
  coalesce(c.prompt_tokens, 0) AS prompt_tokens,
  coalesce(c.cache_read_tokens, 0) AS cache_read_tokens,
  coalesce(c.cache_write_5m_tokens, 0) AS cache_write_5m_tokens,
  coalesce(c.cache_write_1h_tokens, 0) AS cache_write_1h_tokens,
  coalesce(c.uncached_input_tokens, 0) AS uncached_input_tokens,
  coalesce(c.output_tokens, 0) AS output_tokens,
  coalesce(c.peak_context_tokens, 0) AS peak_context_tokens,
  coalesce(c.compactions, 0) AS compactions,
  coalesce(c.blocked_compactions, 0) AS blocked_compactions,
  coalesce(c.overflow_retries, 0) AS overflow_retries,
  coalesce(c.failed_turns, 0) AS failed_turns,
  coalesce(c.long_context_requests, 0) AS long_context_requests,
  coalesce(c.unpriced_requests, 0) AS unpriced_requests,
  coalesce(c.unpriced_prompt_tokens, 0) AS unpriced_prompt_tokens,
  coalesce(c.unpriced_output_tokens, 0) AS unpriced_output_tokens,
  pusd_to_usd(c.cost_pusd) AS cost_usd,
  v.saving_vs_recorded_prompt_tokens,
  pusd_to_usd(v.saving_vs_recorded_pusd) AS saving_vs_recorded_usd,
  v.saving_vs_recorded_pct,
  v.saving_vs_none_prompt_tokens,
  pusd_to_usd(v.saving_vs_none_pusd) AS saving_vs_none_usd,
  v.saving_vs_none_pct
FROM scenarios sc
LEFT JOIN scenario_costs c ON c.scenario = sc.name
LEFT JOIN scenario_savings v ON v.scenario = sc.name
ORDER BY sc.name;
