-- Per scenario over all sessions.
CREATE OR REPLACE VIEW scenario_costs AS
SELECT
  c.scenario,
  any_value(sc.family) AS family,
  count(*) AS sessions,
  sum(c.requests) AS requests,
  sum(c.summarize_requests) AS summarize_requests,
  sum(c.rejected_overflows) AS rejected_overflows,
  sum(c.prompt_tokens) AS prompt_tokens,
  sum(c.cache_read_tokens) AS cache_read_tokens,
  sum(c.cache_write_5m_tokens) AS cache_write_5m_tokens,
  sum(c.cache_write_1h_tokens) AS cache_write_1h_tokens,
  sum(c.uncached_input_tokens) AS uncached_input_tokens,
  sum(c.output_tokens) AS output_tokens,
  max(c.peak_context_tokens) AS peak_context_tokens,
  sum(c.overflow_retries) AS overflow_retries,
  sum(c.long_context_requests) AS long_context_requests,
  sum(c.unpriced_requests) AS unpriced_requests,
  sum(c.unpriced_prompt_tokens) AS unpriced_prompt_tokens,
  sum(c.unpriced_output_tokens) AS unpriced_output_tokens,
  sum(c.cost_input_pusd) AS cost_input_pusd,
  sum(c.cost_cache_read_pusd) AS cost_cache_read_pusd,
  sum(c.cost_cache_write_5m_pusd) AS cost_cache_write_5m_pusd,
  sum(c.cost_cache_write_1h_pusd) AS cost_cache_write_1h_pusd,
  sum(c.cost_output_pusd) AS cost_output_pusd,
  sum(c.cost_pusd) AS cost_pusd,
  sum(c.compactions) AS compactions,
  sum(c.blocked_compactions) AS blocked_compactions,
  sum(c.failed_turns) AS failed_turns
FROM session_costs c
LEFT JOIN scenarios sc ON sc.name = c.scenario
GROUP BY c.scenario;
