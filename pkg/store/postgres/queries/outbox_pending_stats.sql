-- The pending rows per topic and the age in seconds of the oldest pending
-- row of each, for the pending, age and queue depth gauges. The age comes
-- from the database clock, like every other time QueueBox compares with
-- created_at, so a skewed application host does not move the gauge.
SELECT {{.O.Topic}}, count(*), EXTRACT(EPOCH FROM now() - min({{.O.CreatedAt}}))::float8
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY {{.O.Topic}}
