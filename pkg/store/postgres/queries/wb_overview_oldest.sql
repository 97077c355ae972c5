-- The age in milliseconds of the oldest pending row per outbox topic or
-- per inbox source, by the database clock.
SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}},
       (extract(epoch FROM now() - min({{.T.CreatedAt}})) * 1000)::bigint
FROM {{.T.Table}}
WHERE {{.T.State}} = 'pending'
GROUP BY 1
