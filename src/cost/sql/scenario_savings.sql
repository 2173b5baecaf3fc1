-- Per scenario over all sessions: saving against `recorded` and against `none`. Positive = cheaper.
CREATE OR REPLACE VIEW scenario_savings AS
WITH base AS (
  SELECT scenario, family, prompt_tokens, cost_pusd, unpriced_requests FROM scenario_costs
)
SELECT
  c.scenario,
  c.family,
  c.prompt_tokens,
  c.cost_pusd,
  c.unpriced_requests,
  (SELECT cost_pusd FROM base WHERE scenario = 'measured') AS measured_cost_pusd,
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
LEFT JOIN base rec ON rec.scenario = 'recorded'
LEFT JOIN base non ON non.scenario = 'none';
