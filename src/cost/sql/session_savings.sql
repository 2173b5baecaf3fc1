-- Per session and scenario: the session level of `savings.sql`; `measured_cost_pusd` is the bill.
CREATE OR REPLACE VIEW session_savings AS
SELECT * EXCLUDE (level, family) FROM savings WHERE level = 'session';
