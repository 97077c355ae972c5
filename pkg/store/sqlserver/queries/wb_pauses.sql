-- The destination pauses that have not ended by the database clock, by
-- destination, latest end first; the twin of the PostgreSQL
-- wb_pauses.sql.
SELECT destination, replica, reason, detail, until_at, recorded_at
FROM {{.Pauses}}
WHERE until_at > SYSUTCDATETIME()
ORDER BY destination, until_at DESC, replica
