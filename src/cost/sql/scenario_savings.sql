-- Per scenario over all sessions: the scenario level of `savings.sql`.
CREATE OR REPLACE VIEW scenario_savings AS
SELECT scenario, family, * EXCLUDE (level, session_id, scenario, family) FROM savings WHERE level = 'scenario';
