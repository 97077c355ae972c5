-- One page of the workbench's outbox list, newest first by sequence,
-- then by id; the twin of the PostgreSQL wb_list_outbox.sql. The
-- deliveries of a fan-out share their origin's sequence, so the id
-- orders them and the cursor holds both. A keyset page: rows inserted
-- while an operator pages take higher sequences and never shift a later
-- page. No payload in a list.
--
-- T-SQL points: TOP (@limit) in place of LIMIT; 1 = 1 in place of TRUE
-- before the optional filters; the ids read back as lower-case text; the
-- ids order and compare as UNIQUEIDENTIFIER both in ORDER BY and in the
-- cursor, so the two agree (the all-zero id of an old cursor is below
-- every id in that order too).
SELECT TOP (@limit) LOWER(CONVERT(NVARCHAR(36), {{.O.ID}})), {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}},
       {{.O.MaxAttempts}}, {{.O.LastError}}, {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}},
       {{.O.DiscardedAt}}, {{if .O.Lanes}}{{.O.Destination}}, LOWER(CONVERT(NVARCHAR(36), {{.O.OriginID}})){{else}}N'', CAST(NULL AS NVARCHAR(36)){{end}}
FROM {{.O.Table}}
WHERE 1 = 1{{template "wb_filter" .}}
{{- if .Cursor}} AND {{.O.Sequence}} <= @cursor_sequence
  AND ({{.O.Sequence}} < @cursor_sequence OR {{.O.ID}} < {{template "wb_id" "@cursor_id"}}){{end}}
ORDER BY {{.O.Sequence}} DESC, {{.O.ID}} DESC
