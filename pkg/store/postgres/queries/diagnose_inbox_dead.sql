-- The dead inbox rows per source and the age in seconds of the oldest of
-- each, for `queuebox doctor`. Discarded rows (V13) are left out: an operator already
-- decided about them.
SELECT {{.I.Source}}, count(*), EXTRACT(EPOCH FROM now() - min({{.I.CreatedAt}}))::float8
FROM {{.I.Table}}
WHERE {{.I.State}} = 'dead' AND {{.I.DiscardedAt}} IS NULL
GROUP BY {{.I.Source}}
