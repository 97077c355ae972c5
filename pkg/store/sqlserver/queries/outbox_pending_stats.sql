-- The pending rows per topic and destination ('' for a row not routed
-- yet and on an outbox without the lane columns) and the age in seconds
-- of the oldest pending row of each, by the database clock; the twin of the PostgreSQL
-- outbox_pending_stats.sql.
--
-- T-SQL points: DATEDIFF_BIG in microseconds from SYSUTCDATETIME(), read
-- as FLOAT seconds; COUNT_BIG for a BIGINT count.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}N''{{end}}, COUNT_BIG(*),
       CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.O.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY {{.O.Topic}}{{if .O.Lanes}}, {{.O.Destination}}{{end}}
