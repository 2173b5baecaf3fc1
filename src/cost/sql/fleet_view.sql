-- Views of a `--db` file, which keeps every run: `latest_requests` = the request rows of each
-- host's latest run that wrote any (so a report run twice is not counted twice). Plain standard
-- SQL, like every query over the fleet tables: it runs unchanged on DuckDB, Spark SQL and Trino.
CREATE OR REPLACE VIEW latest_requests AS
SELECT r.*
FROM requests r
JOIN runs ru ON ru.run_id = r.run_id
WHERE ru.started_at = (SELECT MAX(x.started_at) FROM runs x WHERE x.host = ru.host AND x.requests > 0);
COMMENT ON VIEW latest_requests IS 'Request rows of each host''s latest run that wrote requests (a --db file keeps every run).';
