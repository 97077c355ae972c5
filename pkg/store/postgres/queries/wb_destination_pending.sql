-- The pending outbox rows per topic and destination column ('' for rows
-- not routed yet) and the age in milliseconds of the oldest of each, by
-- the database clock, for the destinations page.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}''::text{{end}}, count(*),
       (extract(epoch FROM now() - min({{.O.CreatedAt}})) * 1000)::bigint
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
GROUP BY 1, 2
ORDER BY 2, 1
