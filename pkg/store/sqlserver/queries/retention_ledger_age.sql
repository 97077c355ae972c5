-- Deletes up to @p2 rows of the delivery ledger whose attempt started
-- more than @p1 milliseconds ago; the twin of the PostgreSQL
-- retention_ledger_age.sql.
--
-- T-SQL points: DELETE TOP (@p2); the age bound through DATEADD from
-- SYSUTCDATETIME() (the "before" partial); READPAST so that two replicas'
-- cleanups pass each other's rows instead of waiting.
DELETE TOP (@p2) FROM {{.Ledger.Table}} WITH (READPAST, ROWLOCK)
WHERE started_at < {{template "before" args "Ms" "@p1" "Now" ""}}
