-- Saving of every cost group against the simulated `recorded` policy (so modelling error cancels,
-- replay.md §3) and against `none` (never compact), with the bill (`measured`) beside them. A group
-- is one session under one scenario (`level = 'session'`) or one scenario over all sessions
-- (`level = 'scenario'`). Positive = cheaper than the baseline. Savings are NULL when a side has
-- no priced request. `session_savings.sql` and `scenario_savings.sql` are its two levels.
CREATE OR REPLACE VIEW savings AS
WITH base AS (
  SELECT 'session' AS level, session_id, NULL::VARCHAR AS family, scenario, prompt_tokens, cost_pusd, unpriced_requests
  FROM session_costs
  UNION ALL
  SELECT 'scenario' AS level, NULL::VARCHAR AS session_id, family, scenario, prompt_tokens, cost_pusd, unpriced_requests
  FROM scenario_costs
)
SELECT
  c.level,
  c.session_id,
  c.family,
  c.scenario,
  c.prompt_tokens,
  c.cost_pusd,
  c.unpriced_requests,
  mea.cost_pusd AS measured_cost_pusd,
  rec.prompt_tokens AS recorded_prompt_tokens,
  rec.cost_pusd AS recorded_cost_pusd,
  rec.prompt_tokens - c.prompt_tokens AS saving_vs_recorded_prompt_tokens,
  rec.cost_pusd - c.cost_pusd AS saving_vs_recorded_pusd,
  CASE WHEN rec.cost_pusd > 0 THEN 100.0 * (rec.cost_pusd - c.cost_pusd)::DOUBLE / rec.cost_pusd::DOUBLE END
    AS saving_vs_recorded_pct,
  non.prompt_tokens AS none_prompt_tokens,
  non.cost_pusd AS none_cost_pusd,
  non.prompt_tokens - c.prompt_tokens AS saving_vs_none_prompt_tokens,
  non.cost_pusd - c.cost_pusd AS saving_vs_none_pusd,
  CASE WHEN non.cost_pusd > 0 THEN 100.0 * (non.cost_pusd - c.cost_pusd)::DOUBLE / non.cost_pusd::DOUBLE END
    AS saving_vs_none_pct
FROM base c
LEFT JOIN base mea ON mea.level = c.level AND mea.session_id IS NOT DISTINCT FROM c.session_id AND mea.scenario = 'measured'
LEFT JOIN base rec ON rec.level = c.level AND rec.session_id IS NOT DISTINCT FROM c.session_id AND rec.scenario = 'recorded'
LEFT JOIN base non ON non.level = c.level AND non.session_id IS NOT DISTINCT FROM c.session_id AND non.scenario = 'none';
