-- compactions.csv: one row per compaction (or blocked attempt), in replay order.
SELECT
  session_id, scenario, request_index, trigger,
  prompt_tokens_before, prompt_tokens_after, estimate_tokens_before, estimate_tokens_after,
  messages_before, messages_after, summary_tokens, hook_blocked
FROM (SELECT *, rowid AS seq FROM compactions)
ORDER BY session_id, scenario, request_index, seq;
