-- One page of the undelivered view; the twin of the PostgreSQL
-- wb_undelivered.sql: dead rows not discarded and rows still retrying,
-- changed at or after @since, of one destination column or any, newest
-- first by sequence then id, each with its latest ledger attempt.
--
-- T-SQL points: TOP (@limit) for LIMIT, OUTER APPLY for LEFT JOIN
-- LATERAL, the ids read back as lower-case text and compared as
-- UNIQUEIDENTIFIER in the cursor, as the list does.
SELECT TOP (@limit) LOWER(CONVERT(NVARCHAR(36), o.{{.O.ID}})), o.{{.O.State}}, o.{{.O.Topic}}, o.{{.O.Key}},
       o.{{.O.Attempt}}, o.{{.O.MaxAttempts}}, o.{{.O.LastError}}, o.{{.O.CreatedAt}}, o.{{.O.ScheduledAt}},
       o.{{.O.UpdatedAt}}, o.{{.O.Sequence}}, o.{{.O.DiscardedAt}},
       {{if .O.Lanes}}o.{{.O.Destination}}, LOWER(CONVERT(NVARCHAR(36), o.{{.O.OriginID}})){{else}}N'', CAST(NULL AS NVARCHAR(36)){{end}},
       {{if .Ledger.Table}}COALESCE(a.outcome, N''), COALESCE(a.failure_class, N''), COALESCE(a.status, N''), a.started_at
       {{- else}}N'', N'', N'', CAST(NULL AS DATETIME2){{end}}
FROM {{.O.Table}} o
{{- if .Ledger.Table}}
OUTER APPLY (
  SELECT TOP (1) l.outcome, l.failure_class, l.status, l.started_at FROM {{.Ledger.Table}} l
  WHERE l.outbox_id = o.{{.O.ID}} ORDER BY l.started_at DESC, l.id DESC
) a
{{- end}}
WHERE o.{{.O.UpdatedAt}} >= @since
  AND ((o.{{.O.State}} = 'dead' AND o.{{.O.DiscardedAt}} IS NULL)
       OR (o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Attempt}} > 0))
{{- if .O.Lanes}}
  AND (@destination = N'' OR o.{{.O.Destination}} = @destination)
{{- else}}
  AND @destination = N''
{{- end}}
{{- if .Cursor}} AND o.{{.O.Sequence}} <= @cursor_sequence
  AND (o.{{.O.Sequence}} < @cursor_sequence OR o.{{.O.ID}} < {{template "wb_id" "@cursor_id"}}){{end}}
ORDER BY o.{{.O.Sequence}} DESC, o.{{.O.ID}} DESC
