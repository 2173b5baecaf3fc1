-- Per session and scenario: compactions by trigger, hook blocks, and what they removed, both as the
-- provider counts (prompt tokens) and as FreeCode's own estimate (which understates it, engine.md §6.6).
CREATE OR REPLACE VIEW compaction_summary AS
SELECT
  session_id,
  scenario,
  count(*) FILTER (WHERE NOT hook_blocked) AS compactions,
  count(*) FILTER (WHERE NOT hook_blocked AND trigger = 'threshold') AS threshold_compactions,
  count(*) FILTER (WHERE NOT hook_blocked AND trigger = 'overflow') AS overflow_compactions,
  count(*) FILTER (WHERE NOT hook_blocked AND trigger = 'manual') AS manual_compactions,
  count(*) FILTER (WHERE NOT hook_blocked AND trigger = 'recorded') AS recorded_compactions,
  count(*) FILTER (WHERE hook_blocked) AS blocked_compactions,
  coalesce(sum(prompt_tokens_before - prompt_tokens_after) FILTER (WHERE NOT hook_blocked), 0) AS prompt_tokens_removed,
  coalesce(sum(estimate_tokens_before - estimate_tokens_after) FILTER (WHERE NOT hook_blocked), 0) AS estimate_tokens_removed,
  coalesce(sum(summary_tokens) FILTER (WHERE NOT hook_blocked), 0) AS summary_tokens,
  coalesce(max(prompt_tokens_before), 0) AS max_prompt_tokens_before
FROM compactions
GROUP BY session_id, scenario;
