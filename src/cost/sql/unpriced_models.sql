-- Model names that left billed requests unpriced, and why: never priced at $0 (replay.md §3).
CREATE OR REPLACE VIEW unpriced_models AS
SELECT
  model,
  CASE
    WHEN price_id IS NULL THEN 'unknown model'
    WHEN NOT has_window THEN 'no price at that date'
    ELSE 'no rate for a used cache class'
  END AS reason,
  count(*) AS requests,
  sum(prompt_tokens) AS prompt_tokens,
  sum(output_tokens) AS output_tokens
FROM (
  SELECT c.*, EXISTS (
    SELECT 1 FROM prices p
    WHERE p.price_id = c.price_id AND (
      (c.timestamp_ms IS NULL AND p.valid_to_ms IS NULL)
      OR (c.timestamp_ms IS NOT NULL
          AND (p.valid_from_ms IS NULL OR p.valid_from_ms <= c.timestamp_ms)
          AND (p.valid_to_ms IS NULL OR c.timestamp_ms < p.valid_to_ms))
    )
  ) AS has_window
  FROM request_costs c
  WHERE c.unpriced
)
GROUP BY ALL;
