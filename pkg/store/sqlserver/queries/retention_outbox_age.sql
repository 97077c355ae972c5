-- Deletes up to @p2 sent or dead outbox rows whose last state change is
-- older than @p1 milliseconds; the twin of the PostgreSQL
-- retention_outbox_age.sql. Pending and processing rows never match.
--
-- On a partitioned outbox created_at is bounded by the same age (a row is
-- changed after it is made), so the delete eliminates the partitions
-- newer than the age, as the PostgreSQL twin does.
--
-- T-SQL points: DELETE TOP (@p2); the age bound through DATEADD from
-- SYSUTCDATETIME() (the "before" partial); READPAST so a cleanup never
-- waits on a replay.
DELETE TOP (@p2) FROM {{.O.Table}} WITH (READPAST, ROWLOCK)
WHERE {{.O.State}} IN ('sent', 'dead')
  AND {{.O.UpdatedAt}} < {{template "before" args "Ms" "@p1" "Now" ""}}
{{- if .Partitioned}}
  AND {{.O.CreatedAt}} < {{template "before" args "Ms" "@p1" "Now" ""}}
{{- end}}
