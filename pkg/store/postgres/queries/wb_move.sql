-- Moves up to @limit rows a workbench filter selects back to pending in
-- one statement (a small replay). The caller narrowed the filter to final
-- states; the outer UPDATE checks them again on the locked row.
UPDATE {{.T.Table}}
SET {{template "wb_pending" .}}
WHERE {{.T.State}} IN ({{range $i, $s := .Final}}{{if $i}}, {{end}}'{{$s}}'{{end}})
  AND {{.T.ID}} IN (
    SELECT {{.T.ID}}
    FROM {{.T.Table}}
    WHERE TRUE{{template "wb_filter" .}}
    LIMIT @limit
    FOR UPDATE SKIP LOCKED)
