-- The attempts of the delivery ledger per destination and minute since
-- @window_ms ago, the recent ones (since @recent_ms ago) apart; the twin
-- of the PostgreSQL wb_destination_minutes.sql.
--
-- T-SQL points: the minute as DATEADD(MINUTE, DATEDIFF(MINUTE, 0, t), 0),
-- SUM(CASE ...) for count(*) FILTER, SYSUTCDATETIME() for now() (every
-- DATETIME2 holds UTC).
SELECT destination, DATEADD(MINUTE, DATEDIFF(MINUTE, 0, started_at), 0),
       CAST(SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END) AS BIGINT),
       CAST(SUM(CASE WHEN outcome IN ('failed', 'dead') THEN 1 ELSE 0 END) AS BIGINT),
       CAST(SUM(CASE WHEN outcome = 'sent' AND started_at >= DATEADD(MILLISECOND, -@recent_ms, SYSUTCDATETIME()) THEN 1 ELSE 0 END) AS BIGINT),
       CAST(SUM(CASE WHEN outcome IN ('failed', 'dead') AND started_at >= DATEADD(MILLISECOND, -@recent_ms, SYSUTCDATETIME()) THEN 1 ELSE 0 END) AS BIGINT)
FROM {{.Ledger.Table}}
WHERE started_at >= DATEADD(MILLISECOND, -@window_ms, SYSUTCDATETIME()) AND outcome <> 'deferred'
GROUP BY destination, DATEADD(MINUTE, DATEDIFF(MINUTE, 0, started_at), 0)
ORDER BY destination, DATEADD(MINUTE, DATEDIFF(MINUTE, 0, started_at), 0)
