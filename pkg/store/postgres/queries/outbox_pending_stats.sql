-- The pending rows per topic and the oldest pending creation time, for
-- the pending, age and queue depth gauges.
SELECT {{.O.Topic}}, count(*), min({{.O.CreatedAt}})
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY {{.O.Topic}}
