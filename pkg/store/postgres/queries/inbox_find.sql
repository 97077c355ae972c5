-- Returns the id of the row that a source stored under an idempotency
-- key. Insert reads it after a retry whose first try may have committed.
SELECT {{.I.ID}}::text
FROM {{.I.Table}}
WHERE {{.I.Source}} = $1 AND {{.I.IdempotencyKey}} = $2
