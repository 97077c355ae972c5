-- The dead rows not discarded per outbox topic or per inbox source.
SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}, count(*)
FROM {{.T.Table}}
WHERE {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
GROUP BY 1
