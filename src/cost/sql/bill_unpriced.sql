-- Models that left requests of the bill unpriced within a window (same bounds as bill_report).
CREATE OR REPLACE MACRO bill_unpriced(since_ms, until_ms) AS TABLE
SELECT model, count(*) AS requests, sum(prompt_tokens + output_tokens) AS tokens
FROM bill_requests
WHERE unpriced
  AND (since_ms IS NULL OR (timestamp_ms IS NOT NULL AND timestamp_ms >= since_ms))
  AND (until_ms IS NULL OR (timestamp_ms IS NOT NULL AND timestamp_ms < until_ms))
GROUP BY model
ORDER BY requests DESC, model;
