-- One page of the undelivered view: outbox rows that ended dead (not
-- discarded) or that keep retrying (pending or processing after a failed
-- attempt), changed at or after @since, of one destination column or any
-- (@destination ''), newest first by sequence then id, as the list pages.
-- Each row carries its latest attempt in the delivery ledger, found
-- through the ledger's row index; none when the ledger is off.
SELECT o.{{.O.ID}}::text, o.{{.O.State}}, o.{{.O.Topic}}, o.{{.O.Key}}, o.{{.O.Attempt}}, o.{{.O.MaxAttempts}},
       o.{{.O.LastError}}, o.{{.O.CreatedAt}}, o.{{.O.ScheduledAt}}, o.{{.O.UpdatedAt}}, o.{{.O.Sequence}},
       o.{{.O.DiscardedAt}},
       {{if .O.Lanes}}o.{{.O.Destination}}, o.{{.O.OriginID}}::text{{else}}''::text, NULL::text{{end}},
       {{if .Ledger.Table}}COALESCE(a.outcome, ''), COALESCE(a.failure_class, ''), COALESCE(a.status, ''), a.started_at
       {{- else}}'', '', '', NULL::timestamptz{{end}}
FROM {{.O.Table}} o
{{- if .Ledger.Table}}
LEFT JOIN LATERAL (
  SELECT outcome, failure_class, status, started_at FROM {{.Ledger.Table}} l
  WHERE l.outbox_id = o.{{.O.ID}} ORDER BY l.started_at DESC, l.id DESC LIMIT 1
) a ON TRUE
{{- end}}
WHERE o.{{.O.UpdatedAt}} >= @since
  AND ((o.{{.O.State}} = 'dead' AND o.{{.O.DiscardedAt}} IS NULL)
       OR (o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Attempt}} > 0))
{{- if .O.Lanes}}
  AND (@destination::text = '' OR o.{{.O.Destination}} = @destination::text)
{{- else}}
  AND @destination::text = ''
{{- end}}
{{- if .Cursor}} AND o.{{.O.Sequence}} <= @cursor_sequence
  AND (o.{{.O.Sequence}} < @cursor_sequence OR o.{{.O.ID}} < @cursor_id::uuid){{end}}
ORDER BY o.{{.O.Sequence}} DESC, o.{{.O.ID}} DESC
LIMIT @limit
