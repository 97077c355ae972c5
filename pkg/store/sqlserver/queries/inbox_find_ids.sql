-- Returns which ids of the JSON array @p1 the inbox holds: InsertBatch
-- reads it for the rows that its statement did not report stored, since a
-- try whose answer was lost (a deadlock retry, a broken connection) may
-- have committed them, and a row under a message's own id is that
-- message, not a duplicate.
SELECT LOWER(CONVERT(NVARCHAR(36), {{.I.ID}}))
FROM {{.I.Table}}
WHERE {{.I.ID}} IN (SELECT CAST([value] AS UNIQUEIDENTIFIER) FROM OPENJSON(@p1))
