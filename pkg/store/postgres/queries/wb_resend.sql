-- Moves one row in a final state of its table back to pending (the
-- workbench's resend), with an optional corrected payload and headers on
-- an outbox row. The state condition is in this statement, on the locked
-- row: a row that a replica holds never moves, and of two resends of one
-- row only the first moves it. It counts the move first (the "requeued"
-- partial). It returns the payload before and after,
-- whose digests the caller logs.
{{$q := "inbox"}}{{if .Outbox}}{{$q = "outbox"}}{{end}}
WITH {{if .Requeues}}{{template "requeued" args "Table" .Requeues "Queue" $q}}, {{end}}old AS (
    SELECT {{.T.ID}} AS id, {{if .Outbox}}{{.O.Payload}}{{else}}{{.I.Payload}}{{end}}::text AS payload
    FROM {{.T.Table}}
    WHERE {{.T.ID}} = @id::uuid{{template "after_requeued" .Requeues}}
    FOR UPDATE)
UPDATE {{.T.Table}} AS r
SET {{template "wb_pending" .}}
{{- if .Outbox}},
    {{.O.Payload}} = COALESCE(@payload::text::jsonb, r.{{.O.Payload}}),
    {{.O.Headers}} = COALESCE(@headers::text::jsonb, r.{{.O.Headers}}){{end}}
FROM old
WHERE r.{{.T.ID}} = old.id
  AND r.{{.T.State}} IN ({{range $i, $s := .Final}}{{if $i}}, {{end}}'{{$s}}'{{end}})
RETURNING old.payload, r.{{if .Outbox}}{{.O.Payload}}{{else}}{{.I.Payload}}{{end}}::text
