-- Moves up to @limit rows a workbench filter selects back to pending in
-- one statement (a small replay). The caller narrowed the filter to final
-- states; the outer UPDATE checks them again on the locked row. It
-- counts the move first (the "requeued" partial).
{{$q := "inbox"}}{{if .Outbox}}{{$q = "outbox"}}{{end}}
{{if .Requeues}}WITH {{template "requeued" args "Table" .Requeues "Queue" $q}}
{{end}}UPDATE {{.T.Table}}
SET {{template "wb_pending" .}}
WHERE {{.T.State}} IN ({{range $i, $s := .Final}}{{if $i}}, {{end}}'{{$s}}'{{end}})
  AND {{.T.ID}} IN (
    SELECT {{.T.ID}}
    FROM {{.T.Table}}
    WHERE TRUE{{template "wb_filter" .}}{{template "after_requeued" .Requeues}}
    LIMIT @limit
    FOR UPDATE SKIP LOCKED)
