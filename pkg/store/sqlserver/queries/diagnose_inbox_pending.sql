-- The pending inbox rows per source and the age in seconds of the oldest
-- of each, by the database clock; the twin of the PostgreSQL file.
SELECT {{.I.Source}}, COUNT_BIG(*),
       CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.I.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.I.Table}}
WHERE {{.I.State}} = 'pending'
GROUP BY {{.I.Source}}
