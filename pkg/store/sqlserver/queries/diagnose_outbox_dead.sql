-- The dead outbox rows per topic and destination and the age in seconds
-- of the oldest of each; the twin of the PostgreSQL file. Discarded rows
-- (V13) are left out: an operator already decided about them.
SELECT {{.O.Topic}}, {{if .O.Lanes}}{{.O.Destination}}{{else}}N''{{end}}, COUNT_BIG(*),
       CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.O.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.O.Table}}
WHERE {{.O.State}} = 'dead' AND {{.O.DiscardedAt}} IS NULL
GROUP BY {{.O.Topic}}{{if .O.Lanes}}, {{.O.Destination}}{{end}}
