-- The dead rows not discarded per outbox topic or per inbox source; the
-- twin of the PostgreSQL wb_overview_dead.sql.
SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}, COUNT_BIG(*)
FROM {{.T.Table}}
WHERE {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
GROUP BY {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}
