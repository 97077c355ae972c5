-- The dead inbox rows per source and the age in seconds of the oldest of
-- each, for `queuebox doctor`.
SELECT {{.I.Source}}, count(*), EXTRACT(EPOCH FROM now() - min({{.I.CreatedAt}}))::float8
FROM {{.I.Table}}
WHERE {{.I.State}} = 'dead'
GROUP BY {{.I.Source}}
