-- One page of the workbench's inbox list, newest first by (created_at,
-- id): a keyset page, so a row inserted while an operator pages never
-- shifts a later page.
SELECT {{.I.ID}}::text, {{.I.State}}, {{.I.Source}}, {{.I.EventType}}, {{.I.AggregateID}}, {{.I.IdempotencyKey}},
       {{.I.Consumption}}, {{.I.Attempt}}, {{.I.LastError}}, {{.I.CreatedAt}}, {{.I.ScheduledAt}}, {{.I.ProcessedAt}},
       {{.I.DiscardedAt}}
FROM {{.I.Table}}
WHERE TRUE{{template "wb_filter" .}}
{{- if .Cursor}} AND ({{.I.CreatedAt}}, {{.I.ID}}) < (@cursor_created_at, @cursor_id::uuid){{end}}
ORDER BY {{.I.CreatedAt}} DESC, {{.I.ID}} DESC
LIMIT @limit
