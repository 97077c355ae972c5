-- One page of the workbench's outbox list, newest first by sequence,
-- then by id: the deliveries of a fan-out share their origin's sequence,
-- so the id orders them and the cursor holds both (a keyset page: rows
-- inserted while an operator pages get higher sequences and never shift
-- a later page). The cursor's first condition bounds the sequence alone,
-- so the scan starts at the cursor. No payload in a list.
SELECT {{.O.ID}}::text, {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.LastError}},
       {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.DiscardedAt}},
       {{if .O.Lanes}}{{.O.Destination}}, {{.O.OriginID}}::text{{else}}''::text, NULL::text{{end}}
FROM {{.O.Table}}
WHERE TRUE{{template "wb_filter" .}}
{{- if .Cursor}} AND {{.O.Sequence}} <= @cursor_sequence
  AND ({{.O.Sequence}} < @cursor_sequence OR {{.O.ID}} < @cursor_id::uuid){{end}}
ORDER BY {{.O.Sequence}} DESC, {{.O.ID}} DESC
LIMIT @limit
