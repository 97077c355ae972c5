-- Deletes up to @p2 processed or dead inbox rows received more than @p1
-- milliseconds ago; the twin of the PostgreSQL retention_inbox_age.sql.
-- Pending and processing rows never match.
--
-- T-SQL points: DELETE TOP (@p2); the age bound through DATEADD from
-- SYSUTCDATETIME() (the "before" partial); READPAST.
DELETE TOP (@p2) FROM {{.I.Table}} WITH (READPAST, ROWLOCK)
WHERE {{.I.State}} IN ('processed', 'dead')
  AND {{.I.CreatedAt}} < {{template "before" args "Ms" "@p1" "Now" ""}}
