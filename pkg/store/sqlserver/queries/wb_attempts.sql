-- The attempts of the outbox rows @p1 (a JSON array of ids) in the
-- delivery ledger, newest first, at most @p2; the twin of the PostgreSQL
-- wb_attempts.sql.
--
-- T-SQL points: TOP (@p2) instead of LIMIT; the ids through OPENJSON, and
-- TRY_CAST keeps a malformed id from failing the statement.
SELECT TOP (@p2) id, LOWER(CONVERT(NVARCHAR(36), outbox_id)), LOWER(CONVERT(NVARCHAR(36), message_id)),
    destination, attempt, started_at, duration_ms, outcome,
    COALESCE(failure_class, ''), COALESCE(status, ''), COALESCE(answer, ''), recorded_at
FROM {{.Ledger.Table}}
WHERE outbox_id IN (SELECT TRY_CAST([value] AS UNIQUEIDENTIFIER) FROM OPENJSON(@p1))
ORDER BY started_at DESC, id DESC
