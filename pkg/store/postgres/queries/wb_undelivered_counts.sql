-- The counts of the undelivered view (see wb_undelivered.sql) over every
-- row it selects, per destination column and class of the latest ledger
-- attempt ('' without one), dead and retrying apart.
SELECT {{if .O.Lanes}}o.{{.O.Destination}}{{else}}''::text{{end}},
       {{if .Ledger.Table}}COALESCE(a.failure_class, ''){{else}}''::text{{end}},
       count(*) FILTER (WHERE o.{{.O.State}} = 'dead'), count(*) FILTER (WHERE o.{{.O.State}} <> 'dead')
FROM {{.O.Table}} o
{{- if .Ledger.Table}}
LEFT JOIN LATERAL (
  SELECT failure_class FROM {{.Ledger.Table}} l
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
GROUP BY 1, 2
ORDER BY 1, 2
