-- `simulate --from`: the replay tables the report views read besides `request_costs`, filled from
-- the exports once `fleet_read.sql` has keyed their sessions (`fleet_keys`). Only the scenarios
-- shown (`scenarios`) are read. As over logs: the fidelity note is on the `recorded` rows only.

INSERT INTO compactions
SELECT
  k.key, c.scenario, c.request_index, c.trigger,
  c.prompt_tokens_before, c.prompt_tokens_after, c.estimate_tokens_before, c.estimate_tokens_after,
  c.messages_before, c.messages_after, c.summary_tokens, c.hook_blocked
FROM fleet.compactions c
JOIN fleet_keys k ON k.host = c.host AND k.session_id = c.session_id
WHERE c.scenario IN (SELECT name FROM scenarios)
ORDER BY c.host, k.key, c.scenario, c.request_index;

INSERT INTO sessions
SELECT
  k.key, s.source, s.models, p.scenario, p.failed_turns,
  CASE WHEN sc.family = 'recorded' THEN s.fidelity_note END,
  p.flags
FROM fleet.replays p
JOIN scenarios sc ON sc.name = p.scenario
-- One row per session of a run, so that a session id read twice cannot multiply the replay rows.
JOIN (
  SELECT host, run_id, session_id, any_value(source) AS source, any_value(models) AS models,
         any_value(fidelity_note) AS fidelity_note
  FROM fleet.sessions
  GROUP BY host, run_id, session_id
) s ON s.host = p.host AND s.run_id = p.run_id AND s.session_id = p.session_id
JOIN fleet_keys k ON k.host = p.host AND k.session_id = p.session_id
ORDER BY p.host, k.key, p.scenario;
