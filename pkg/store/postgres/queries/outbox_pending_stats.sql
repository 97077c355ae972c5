-- The pending rows per topic and destination (the destination column, ''
-- for a row not routed yet and on an outbox without the lane columns) and
-- the age in seconds of the oldest pending row of each, for the pending,
-- age and queue depth gauges. The age comes
-- from the database clock, like every other time QueueBox compares with
-- created_at, so a skewed application host does not move the gauge.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}''{{end}}, count(*),
       EXTRACT(EPOCH FROM now() - min({{.O.CreatedAt}}))::float8
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY {{.O.Topic}}{{if .O.Lanes}}, {{.O.Destination}}{{end}}
