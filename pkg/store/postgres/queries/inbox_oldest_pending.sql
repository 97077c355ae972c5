-- The creation time of the oldest pending row, push or pull, for the age
-- gauge: a pull backlog must show in it as well as a relay backlog.
SELECT min({{.I.CreatedAt}})
FROM {{.I.Table}}
WHERE {{.I.State}} = 'pending'
