-- Deletes up to @p2 sent or dead outbox rows whose last state change is
-- older than @p1 milliseconds; the twin of the PostgreSQL
-- retention_outbox_age.sql. Pending and processing rows never match.
--
-- T-SQL points: DELETE TOP (@p2); the age bound through DATEADD from
-- SYSUTCDATETIME() (the "before" partial); READPAST so a cleanup never
-- waits on a replay.
DELETE TOP (@p2) FROM {{.O.Table}} WITH (READPAST, ROWLOCK)
WHERE {{.O.State}} IN ('sent', 'dead')
  AND {{.O.UpdatedAt}} < {{template "before" args "Ms" "@p1" "Now" ""}}
