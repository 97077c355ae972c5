-- Returns the id of the row that a source stored under an idempotency
-- key; the twin of the PostgreSQL inbox_find.sql. Insert reads it after a
-- retry whose first try may have committed.
--
-- T-SQL points: UNIQUEIDENTIFIER read back as lower-case text.
SELECT LOWER(CONVERT(NVARCHAR(36), {{.I.ID}}))
FROM {{.I.Table}}
WHERE {{.I.Source}} = @p1 AND {{.I.IdempotencyKey}} = @p2
