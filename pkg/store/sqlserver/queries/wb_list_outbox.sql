-- One page of the workbench's outbox list, newest first by sequence; the
-- twin of the PostgreSQL wb_list_outbox.sql. A keyset page: rows
-- inserted while an operator pages take higher sequences and never
-- shift a later page. No payload in a list.
--
-- T-SQL points: TOP (@limit) in place of LIMIT; 1 = 1 in place of TRUE
-- before the optional filters; the id read back as lower-case text.
SELECT TOP (@limit) LOWER(CONVERT(NVARCHAR(36), {{.O.ID}})), {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}},
       {{.O.MaxAttempts}}, {{.O.LastError}}, {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}},
       {{.O.DiscardedAt}}
FROM {{.O.Table}}
WHERE 1 = 1{{template "wb_filter" .}}
{{- if .Cursor}} AND {{.O.Sequence}} < @cursor_sequence{{end}}
ORDER BY {{.O.Sequence}} DESC
