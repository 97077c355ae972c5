-- The creation time of the oldest pending push row, for the age gauge.
SELECT min({{.I.CreatedAt}})
FROM {{.I.Table}}
WHERE {{.I.State}} = 'pending' AND {{.I.Consumption}} = 'push'
