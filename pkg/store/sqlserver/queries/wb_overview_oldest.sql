-- The age in milliseconds of the oldest pending row per outbox topic or
-- per inbox source, by the database clock; the twin of the PostgreSQL
-- wb_overview_oldest.sql.
--
-- T-SQL points: DATEDIFF_BIG, so an age of weeks overflows no INT;
-- SYSUTCDATETIME(), the zone of every DATETIME2 column.
SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}},
       DATEDIFF_BIG(MILLISECOND, MIN({{.T.CreatedAt}}), SYSUTCDATETIME())
FROM {{.T.Table}}
WHERE {{.T.State}} = 'pending'
GROUP BY {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}
