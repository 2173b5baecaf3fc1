-- Per session and scenario. Billed token totals exclude rejected overflows; cost sums the priced
-- requests (NULL when none is priced) and `unpriced_requests` says how many were left out.
CREATE OR REPLACE VIEW session_costs AS
WITH req AS (
  SELECT
    session_id,
    scenario,
    any_value(source) AS source,
    list_sort(list(DISTINCT model)) AS models,
    count(*) FILTER (WHERE kind = 'request') AS requests,
    count(*) FILTER (WHERE kind = 'summarize') AS summarize_requests,
    count(*) FILTER (WHERE kind = 'rejected_overflow') AS rejected_overflows,
    coalesce(sum(prompt_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS prompt_tokens,
    coalesce(sum(cache_read_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS cache_read_tokens,
    coalesce(sum(cache_write_5m_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS cache_write_5m_tokens,
    coalesce(sum(cache_write_1h_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS cache_write_1h_tokens,
    coalesce(sum(uncached_input_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS uncached_input_tokens,
    coalesce(sum(output_tokens) FILTER (WHERE kind <> 'rejected_overflow'), 0) AS output_tokens,
    -- The agent's own context: a rejected prompt never became context, a summarizer call is not the agent's.
    coalesce(max(context_tokens_after) FILTER (WHERE kind = 'request'), 0) AS peak_context_tokens,
    coalesce(sum(overflow_retries), 0) AS overflow_retries,
    count(*) FILTER (WHERE compaction_before) AS requests_after_compaction,
    count(*) FILTER (WHERE long_context) AS long_context_requests,
    count(*) FILTER (WHERE unpriced) AS unpriced_requests,
    coalesce(sum(prompt_tokens) FILTER (WHERE unpriced), 0) AS unpriced_prompt_tokens,
    coalesce(sum(output_tokens) FILTER (WHERE unpriced), 0) AS unpriced_output_tokens,
    sum(cost_input_pusd) AS cost_input_pusd,
    sum(cost_cache_read_pusd) AS cost_cache_read_pusd,
    sum(cost_cache_write_5m_pusd) AS cost_cache_write_5m_pusd,
    sum(cost_cache_write_1h_pusd) AS cost_cache_write_1h_pusd,
    sum(cost_output_pusd) AS cost_output_pusd,
    sum(cost_pusd) AS cost_pusd
  FROM request_costs
  GROUP BY session_id, scenario
),
comp AS (
  SELECT session_id, scenario,
         count(*) FILTER (WHERE NOT hook_blocked) AS compactions,
         count(*) FILTER (WHERE hook_blocked) AS blocked_compactions
  FROM compactions
  GROUP BY session_id, scenario
)
SELECT
  req.*,
  coalesce(comp.compactions, 0) AS compactions,
  coalesce(comp.blocked_compactions, 0) AS blocked_compactions,
  coalesce(s.failed_turns, 0) AS failed_turns,
  coalesce(s.flags, []::VARCHAR[]) AS flags,
  s.fidelity_note
FROM req
LEFT JOIN comp USING (session_id, scenario)
LEFT JOIN sessions s USING (session_id, scenario);
