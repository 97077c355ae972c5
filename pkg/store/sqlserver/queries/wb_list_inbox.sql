-- One page of the workbench's inbox list, newest first by (created_at,
-- id); the twin of the PostgreSQL wb_list_inbox.sql. A keyset page: a row
-- inserted while an operator pages never shifts a later page.
--
-- T-SQL points: no row-value comparison, so the cursor condition is
-- spelled out; the cursor id is compared as a UNIQUEIDENTIFIER, in SQL
-- Server's own order, the order of ORDER BY; TOP (@limit); the cursor
-- time arrives in UTC and is cast to DATETIME2.
SELECT TOP (@limit) LOWER(CONVERT(NVARCHAR(36), {{.I.ID}})), {{.I.State}}, {{.I.Source}}, {{.I.EventType}},
       {{.I.AggregateID}}, {{.I.IdempotencyKey}}, {{.I.Consumption}}, {{.I.Attempt}}, {{.I.LastError}}, {{.I.CreatedAt}},
       {{.I.ScheduledAt}}, {{.I.ProcessedAt}}, {{.I.DiscardedAt}}
FROM {{.I.Table}}
WHERE 1 = 1{{template "wb_filter" .}}
{{- if .Cursor}}
  AND ({{.I.CreatedAt}} < CAST(@cursor_created_at AS DATETIME2)
       OR ({{.I.CreatedAt}} = CAST(@cursor_created_at AS DATETIME2) AND {{.I.ID}} < {{template "wb_id" "@cursor_id"}})){{end}}
ORDER BY {{.I.CreatedAt}} DESC, {{.I.ID}} DESC
