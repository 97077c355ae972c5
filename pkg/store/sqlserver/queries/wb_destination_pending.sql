-- The pending outbox rows per topic and destination column, with the age
-- in milliseconds of the oldest of each by the database clock; the twin
-- of the PostgreSQL wb_destination_pending.sql.
--
-- T-SQL points: DATEDIFF_BIG for the age, GROUP BY the columns.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}N''{{end}}, CAST(COUNT(*) AS BIGINT),
       DATEDIFF_BIG(MILLISECOND, MIN({{.O.CreatedAt}}), SYSUTCDATETIME())
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY {{.O.Topic}}{{if .O.Lanes}}, {{.O.Destination}}{{end}}
