-- Returns which of the ids $1 the inbox holds. InsertBatch reads it after
-- a retry whose first try may have committed: a row under a message's own
-- id is that message, stored, not a duplicate.
SELECT {{.I.ID}}::text
FROM {{.I.Table}}
WHERE {{.I.ID}} = ANY ($1::uuid[])
