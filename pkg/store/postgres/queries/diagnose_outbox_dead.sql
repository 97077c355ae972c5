-- The dead outbox rows per topic and the age in seconds of the oldest of
-- each, for `queuebox doctor`. Discarded rows (V13) are left out: an operator already
-- decided about them.
SELECT {{.O.Topic}}, count(*), EXTRACT(EPOCH FROM now() - min({{.O.CreatedAt}}))::float8
FROM {{.O.Table}}
WHERE {{.O.State}} = 'dead' AND {{.O.DiscardedAt}} IS NULL
GROUP BY {{.O.Topic}}
