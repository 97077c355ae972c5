-- The dead outbox rows per topic and the age in seconds of the oldest of
-- each, for `queuebox doctor`.
SELECT {{.O.Topic}}, count(*), EXTRACT(EPOCH FROM now() - min({{.O.CreatedAt}}))::float8
FROM {{.O.Table}}
WHERE {{.O.State}} = 'dead'
GROUP BY {{.O.Topic}}
