-- Deletes up to $2 sent or dead outbox rows whose last state change is
-- older than $1 milliseconds. Pending and processing rows never match.
-- On a partitioned outbox the row's created_at is bounded too (a row is
-- changed after it is made): PostgreSQL then leaves out, as the statement
-- starts, every partition newer than the age, which holds no row to
-- delete. Without that bound the last batch of each cycle, the one that
-- comes back short, read every recent partition to the end; under a
-- backlog that kept old partitions from being dropped, for seconds.
{{- $young := ""}}{{$inner := ""}}{{if .Partitioned}}
{{- $young = printf "\n  AND %s < now() - $1 * interval '1 millisecond'" .O.CreatedAt}}
{{- $inner = printf "\n      AND %s < now() - $1 * interval '1 millisecond'" .O.CreatedAt}}{{end}}
DELETE FROM {{.O.Table}}
WHERE {{if .Partitioned}}({{.O.ID}}, {{.O.CreatedAt}}){{else}}{{.O.ID}}{{end}} IN (
    SELECT {{.O.ID}}{{if .Partitioned}}, {{.O.CreatedAt}}{{end}} FROM {{.O.Table}}
    WHERE {{.O.State}} IN ('sent', 'dead')
      AND {{.O.UpdatedAt}} < now() - $1 * interval '1 millisecond'{{$inner}}
    LIMIT $2){{$young}}
