-- Fidelity of the `recorded` replay against the measured usage (`measured` rows), request by
-- request (replay.md §6): prompt-token and cost error over the matched requests, and the median
-- absolute per-request error of prompt tokens and of cache reads (as % of the measured prompt).
-- The requests compared are the ones the replay models, flagged `modelled` by the one definition
-- (`isModelledRequest`, src/simulate/fidelity.ts): side requests billed as measured and requests
-- without measured usage would only dilute the medians. A session with none has no row here
-- (reported as n/a, never 0%).
CREATE OR REPLACE VIEW fidelity AS
WITH pairs AS (
  SELECT
    m.session_id,
    m.prompt_tokens AS measured_prompt,
    r.prompt_tokens AS recorded_prompt,
    m.cache_read_tokens AS measured_read,
    r.cache_read_tokens AS recorded_read,
    m.cost_pusd AS measured_cost,
    r.cost_pusd AS recorded_cost
  FROM request_costs m
  JOIN request_costs r
    ON r.session_id = m.session_id AND r.request_index = m.request_index
   AND r.scenario = 'recorded' AND r.kind = 'request'
  WHERE m.scenario = 'measured' AND m.kind = 'request' AND m.modelled AND r.modelled
)
SELECT
  session_id,
  count(*) AS matched_requests,
  sum(measured_prompt) AS measured_prompt_tokens,
  sum(recorded_prompt) AS recorded_prompt_tokens,
  CASE WHEN sum(measured_prompt) > 0
       THEN 100.0 * (sum(recorded_prompt) - sum(measured_prompt))::DOUBLE / sum(measured_prompt)::DOUBLE END
    AS prompt_tokens_error_pct,
  sum(measured_read) AS measured_cache_read_tokens,
  sum(recorded_read) AS recorded_cache_read_tokens,
  sum(measured_cost) FILTER (WHERE measured_cost IS NOT NULL AND recorded_cost IS NOT NULL) AS measured_cost_pusd,
  sum(recorded_cost) FILTER (WHERE measured_cost IS NOT NULL AND recorded_cost IS NOT NULL) AS recorded_cost_pusd,
  CASE WHEN sum(measured_cost) FILTER (WHERE measured_cost IS NOT NULL AND recorded_cost IS NOT NULL) > 0
       THEN 100.0 * (sum(recorded_cost - measured_cost) FILTER (WHERE measured_cost IS NOT NULL AND recorded_cost IS NOT NULL))::DOUBLE
            / (sum(measured_cost) FILTER (WHERE measured_cost IS NOT NULL AND recorded_cost IS NOT NULL))::DOUBLE END
    AS cost_error_pct,
  median(100.0 * abs(recorded_prompt - measured_prompt)::DOUBLE / measured_prompt::DOUBLE)
    FILTER (WHERE measured_prompt > 0) AS median_request_error_pct,
  median(100.0 * abs(recorded_read - measured_read)::DOUBLE / measured_prompt::DOUBLE)
    FILTER (WHERE measured_prompt > 0) AS median_cache_read_error_pct
FROM pairs
GROUP BY session_id;
