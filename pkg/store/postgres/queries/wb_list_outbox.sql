-- One page of the workbench's outbox list, newest first by sequence (a
-- keyset page: rows inserted while an operator pages get higher
-- sequences and never shift a later page). No payload in a list.
SELECT {{.O.ID}}::text, {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.LastError}},
       {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.DiscardedAt}}
FROM {{.O.Table}}
WHERE TRUE{{template "wb_filter" .}}
{{- if .Cursor}} AND {{.O.Sequence}} < @cursor_sequence{{end}}
ORDER BY {{.O.Sequence}} DESC
LIMIT @limit
