-- The dead inbox rows per source and the age in seconds of the oldest of
-- each; the twin of the PostgreSQL file. Discarded rows (V13) are left out: an operator already
-- decided about them.
SELECT {{.I.Source}}, COUNT_BIG(*),
       CAST(DATEDIFF_BIG(MICROSECOND, MIN({{.I.CreatedAt}}), SYSUTCDATETIME()) AS FLOAT) / 1000000.0
FROM {{.I.Table}}
WHERE {{.I.State}} = 'dead' AND {{.I.DiscardedAt}} IS NULL
GROUP BY {{.I.Source}}
