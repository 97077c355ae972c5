-- Deletes up to $2 processed or dead inbox rows received more than $1
-- milliseconds ago. Pending and processing rows never match. On a
-- partitioned inbox the delete names each row's created_at and bounds it
-- as the search does, so PostgreSQL leaves out the partitions newer than
-- the age as the statement starts, for the delete as for the search.
DELETE FROM {{.I.Table}}
WHERE {{if .Partitioned}}({{.I.ID}}, {{.I.CreatedAt}}){{else}}{{.I.ID}}{{end}} IN (
    SELECT {{.I.ID}}{{if .Partitioned}}, {{.I.CreatedAt}}{{end}} FROM {{.I.Table}}
    WHERE {{.I.State}} IN ('processed', 'dead')
      AND {{.I.CreatedAt}} < now() - $1 * interval '1 millisecond'
    LIMIT $2){{if .Partitioned}}
  AND {{.I.CreatedAt}} < now() - $1 * interval '1 millisecond'{{end}}
