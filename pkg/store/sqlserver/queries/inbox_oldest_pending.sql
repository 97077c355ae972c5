-- The age in seconds of the oldest pending row, push or pull, for the age
-- gauge; the twin of the PostgreSQL inbox_oldest_pending.sql. NULL when
-- nothing is pending.
--
-- T-SQL points: DATEDIFF_BIG in microseconds from SYSUTCDATETIME(), read
-- as FLOAT seconds.
SELECT CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.I.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.I.Table}}
WHERE {{.I.State}} = 'pending'
