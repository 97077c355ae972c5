-- The dead outbox rows per topic and the age in seconds of the oldest of
-- each; the twin of the PostgreSQL file.
SELECT {{.O.Topic}}, COUNT_BIG(*),
       CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.O.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.O.Table}}
WHERE {{.O.State}} = 'dead'
GROUP BY {{.O.Topic}}
