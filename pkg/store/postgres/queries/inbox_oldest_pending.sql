-- The age in seconds of the oldest pending row, push or pull, for the age
-- gauge: a pull backlog must show in it as well as a relay backlog. The
-- database clock measures it; NULL when nothing is pending.
SELECT EXTRACT(EPOCH FROM now() - min({{.I.CreatedAt}}))::float8
FROM {{.I.Table}}
WHERE {{.I.State}} = 'pending'
