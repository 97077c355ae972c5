-- The dead outbox rows per topic and destination (the destination
-- column, '' for a row that died before its routing and on an outbox
-- without the lane columns) and the age in seconds of the oldest of
-- each, for `queuebox doctor`. Discarded rows (V13) are left out: an
-- operator already decided about them.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}''{{end}}, count(*),
       EXTRACT(EPOCH FROM now() - min({{.O.CreatedAt}}))::float8
FROM {{.O.Table}}
WHERE {{.O.State}} = 'dead' AND {{.O.DiscardedAt}} IS NULL
GROUP BY {{.O.Topic}}{{if .O.Lanes}}, {{.O.Destination}}{{end}}
